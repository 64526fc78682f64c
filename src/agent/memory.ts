/**
 * ctx.memory: what an agent remembers per inbox, between runs. Reads see
 * the stored values plus this run's own changes; the changes are saved by
 * the run's finish, in its transaction, so a run that fails or loses its
 * lease leaves memory as the last good run left it (a retry starts from
 * the same place). Limits are checked as the agent writes, so it hears of
 * a bad value or a full memory while it can still do something about it.
 */
import { VigilError } from '../errors.js';
import { MEMORY_LIMITS, validateMemoryKey, validateMemoryValue } from '../store/agent-state.js';
import type { Inbox, MemoryChanges } from '../store/contract.js';

export interface AgentMemory {
  get(key: string): Promise<unknown>;
  /** Stores a JSON value (at most MEMORY_LIMITS.valueBytes as JSON); invalid_memory or memory_full otherwise. */
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Every key and value, this run's changes included. */
  list(): Promise<Record<string, unknown>>;
}

export class StagedMemory implements AgentMemory {
  private stored: Map<string, string> | null = null;
  /** key → JSON to set, or null to delete. */
  private readonly changes = new Map<string, string | null>();

  constructor(private readonly inbox: Inbox) {}

  async get(key: string): Promise<unknown> {
    validateMemoryKey(key);
    const json = (await this.view()).get(key);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }

  async set(key: string, value: unknown): Promise<void> {
    validateMemoryKey(key);
    const json = validateMemoryValue(key, value);
    const view = await this.view();
    const before = view.get(key);
    const total = sizeOf(view) - (before === undefined ? 0 : entryBytes(key, before)) + entryBytes(key, json);
    if (total > MEMORY_LIMITS.totalBytes) {
      throw new VigilError('memory_full', `setting ${JSON.stringify(key)} would make this inbox's memory ${total} bytes; the limit is ${MEMORY_LIMITS.totalBytes}: delete keys first`);
    }
    this.changes.set(key, json);
  }

  async delete(key: string): Promise<boolean> {
    validateMemoryKey(key);
    const existed = (await this.view()).has(key);
    this.changes.set(key, null);
    return existed;
  }

  async list(): Promise<Record<string, unknown>> {
    const view = await this.view();
    return Object.fromEntries([...view].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, json]) => [key, JSON.parse(json) as unknown]));
  }

  /** What the finish saves; undefined when the run changed nothing. */
  pending(): MemoryChanges | undefined {
    if (this.changes.size === 0) return undefined;
    const set: Record<string, unknown> = {};
    const deleted: string[] = [];
    for (const [key, json] of this.changes) {
      if (json === null) deleted.push(key);
      else set[key] = JSON.parse(json) as unknown;
    }
    return { set, delete: deleted };
  }

  private async view(): Promise<Map<string, string>> {
    if (this.stored === null) {
      const entries = Object.entries(await this.inbox.getMemory());
      this.stored = new Map(entries.map(([key, value]) => [key, JSON.stringify(value)]));
    }
    const view = new Map(this.stored);
    for (const [key, json] of this.changes) {
      if (json === null) view.delete(key);
      else view.set(key, json);
    }
    return view;
  }
}

function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
}

function sizeOf(view: Map<string, string>): number {
  let total = 0;
  for (const [key, json] of view) total += entryBytes(key, json);
  return total;
}
