/**
 * The SQLite store: one database file per inbox under a directory, plus the
 * ready index. Open files are kept in a bounded LRU, so a store with 10,000
 * inboxes holds a few hundred descriptors, not 30,000 (WAL uses three each).
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { readClock } from '../../clock.js';
import { VigilError } from '../../errors.js';
import type { Inbox, NextWake, Store, StoreOptions } from '../contract.js';
import { resolveOptions, type ResolvedOptions } from '../options.js';
import { INBOX_ID_PATTERN, validateInboxId, validateLimit, type CheckedEvent } from '../validate.js';
import { IngestGroups } from './group-commit.js';
import { insertEvent } from './ingest.js';
import { InboxDb } from './inbox-db.js';
import { ReadyIndex } from './ready-index.js';
import { assertWritable } from './sqlite-errors.js';
import { SqliteInbox, type InboxFiles } from './sqlite-inbox.js';

const FILE_SUFFIX = '.db';

export class SqliteStore implements Store, InboxFiles {
  readonly dir: string;
  readonly options: ResolvedOptions;
  private readonly open: LRUCache<string, InboxDb>;
  private readonly index: ReadyIndex;
  private closed = false;
  private readonly listeners = new Set<(inboxId: string) => void>();
  private readonly ingestGroups = new IngestGroups((inboxId, events) => this.storeEvents(inboxId, events));

  constructor(dir: string, options: StoreOptions = {}) {
    this.options = resolveOptions(options);
    if (this.options.clock === 'database') {
      throw new VigilError('invalid_options', "clock: 'database' is for PostgreSQL; a SQLite store uses the process clock");
    }
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true });
    this.open = new LRUCache<string, InboxDb>({
      max: this.options.maxOpenInboxes,
      dispose: (db) => db.close(),
    });
    this.index = new ReadyIndex(this.dir, this.options.busyTimeoutMs);
  }

  get maxPayloadBytes(): number {
    return this.options.maxPayloadBytes;
  }

  now(): number {
    return readClock(this.options.clock as () => number);
  }

  inbox(id: string): Inbox {
    this.assertOpen();
    return new SqliteInbox(this, validateInboxId(id));
  }

  connection(inboxId: string, create: boolean): InboxDb | null {
    this.assertOpen();
    const cached = this.open.get(inboxId);
    if (cached !== undefined) return cached;
    const file = join(this.dir, inboxId + FILE_SUFFIX);
    if (!create && !existsSync(file)) return null;
    const db = new InboxDb(inboxId, file, this.options, this.index, () => this.now());
    try {
      assertWritable(file);
    } catch (error) {
      db.close();
      throw error;
    }
    this.open.set(inboxId, db);
    return db;
  }

  async inboxes(): Promise<string[]> {
    this.assertOpen();
    return readdirSync(this.dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(FILE_SUFFIX))
      .map((entry) => entry.name.slice(0, -FILE_SUFFIX.length))
      .filter((id) => INBOX_ID_PATTERN.test(id))
      .sort();
  }

  async listInboxes(): Promise<never> {
    throw new Error('not implemented yet');
  }

  async readyInboxes({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    this.assertOpen();
    return this.index.ready(this.now(), validateLimit(limit));
  }

  async dispatchableInboxes({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    this.assertOpen();
    return this.index.dispatchable(this.now(), validateLimit(limit));
  }

  async nextWake(): Promise<NextWake> {
    this.assertOpen();
    return { ...this.index.earliest(), now: this.now() };
  }

  async subscribe(listener: (inboxId: string) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }

  ingestGrouped(inboxId: string, event: CheckedEvent): Promise<boolean> {
    return this.ingestGroups.ingest(inboxId, event);
  }

  storeEvents(inboxId: string, events: CheckedEvent[]): boolean[] {
    const c = this.connection(inboxId, true) as InboxDb;
    const stored = c.write((now) => events.map((event) => insertEvent(c, event, now)), { addsEventsOnly: true });
    if (stored.includes(true)) this.notify(inboxId);
    return stored;
  }

  notify(inboxId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(inboxId);
      } catch {
        // A hint's listener must not fail the write that already committed.
      }
    }
  }

  /**
   * Re-derives the ready index from every inbox file. Needed only after a
   * power loss (the index is written at synchronous=NORMAL) or if the index
   * file was deleted; costs one small transaction per inbox.
   */
  async rebuildReadyIndex(): Promise<number> {
    const ids = await this.inboxes();
    for (const id of ids) this.connection(id, false)?.reindex();
    return ids.length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.open.clear();
    this.index.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new VigilError('store_closed', 'this store was closed; open a new one with openStore()');
  }
}
