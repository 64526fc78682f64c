/**
 * ctx.memory: what an agent remembers per inbox, between runs. Reads see
 * the stored values plus this run's own changes; the changes are saved by
 * the run's finish, in its transaction, so a run that fails or loses its
 * lease leaves memory as the last good run left it (a retry starts from
 * the same place). Limits are checked as the agent writes, so it hears of
 * a bad value or a full memory while it can still do something about it.
 */
import { VigilError } from '../errors.js';
import { MEMORY_LIMITS, validateMemoryKey, validateMemoryValue } from '../store/index.js';
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
  /** Stored values with this run's changes applied, as JSON; loaded on first use. */
  private view: Promise<Map<string, string>> | null = null;
  private bytes = 0;
  /** key → JSON to set, or null to delete: what the finish saves. */
  private readonly changes = new Map<string, string | null>();

  constructor(private readonly inbox: Inbox) {}

  async get(key: string): Promise<unknown> {
    validateMemoryKey(key);
    const json = (await this.load()).get(key);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }

  async set(key: string, value: unknown): Promise<void> {
    validateMemoryKey(key);
    const json = validateMemoryValue(key, value);
    const view = await this.load();
    const before = view.get(key);
    const total = this.bytes - (before === undefined ? 0 : entryBytes(key, before)) + entryBytes(key, json);
    if (total > MEMORY_LIMITS.totalBytes) {
      throw new VigilError('memory_full', `setting ${JSON.stringify(key)} would make this inbox's memory ${total} bytes; the limit is ${MEMORY_LIMITS.totalBytes}: delete keys first`);
    }
    view.set(key, json);
    this.bytes = total;
    this.changes.set(key, json);
  }

  async delete(key: string): Promise<boolean> {
    validateMemoryKey(key);
    const view = await this.load();
    const before = view.get(key);
    if (before !== undefined) {
      view.delete(key);
      this.bytes -= entryBytes(key, before);
    }
    this.changes.set(key, null);
    return before !== undefined;
  }

  async list(): Promise<Record<string, unknown>> {
    const view = await this.load();
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

  /** Read once per run: each get or set after that costs its own key, not the whole memory. */
  private load(): Promise<Map<string, string>> {
    // One read however many calls start before it returns.
    this.view ??= this.inbox.getMemory().then((stored) => {
      const entries = Object.entries(stored).map(([key, value]): [string, string] => [key, JSON.stringify(value)]);
      this.bytes = entries.reduce((sum, [key, json]) => sum + entryBytes(key, json), 0);
      return new Map(entries);
    });
    return this.view;
  }
}

function entryBytes(key: string, json: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8');
}
