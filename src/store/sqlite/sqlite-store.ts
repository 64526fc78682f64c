/**
 * The SQLite backend (engine/port.ts, StorePort): one database file per
 * inbox under a directory, plus the ready index. Open files are kept in a
 * bounded LRU, so a store with 10,000 inboxes holds a few hundred
 * descriptors, not 30,000 (WAL uses three each).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { readClock } from '../../clock.js';
import { isVigilError, VigilError } from '../../errors.js';
import type { InboxLimits, InboxList, InboxRecord, InboxSummary, NextWake, Store, StoreOptions, WakeKind, WakeListener } from '../contract.js';
import type { StorePort } from '../engine/port.js';
import type { IngestResult } from '../engine/quota.js';
import { portOf } from '../engine/store.js';
import { caseCollision, INBOX_ID_PATTERN, type CheckedEvent, type CheckedInboxListQuery, type CheckedRecord } from '../engine/validate/index.js';
import { emptySummary, unreadableSummary } from '../rows.js';
import { resolveOptions, type ResolvedOptions } from '../options.js';
import { currentBootId } from './boot-id.js';
import { inboxSummary } from './dashboard.js';
import { EndedSessions } from './ended-sessions.js';
import { IngestGroups } from './group-commit.js';
import { insertWithQuotas } from './ingest.js';
import { InboxDb, InboxFileDeleted } from './inbox-db.js';
import { assertOwnFile, inboxFile, inboxIdsInDir } from './inbox-file.js';
import { SqliteInboxPort, type InboxFiles } from './inbox-port.js';
import * as lifecycle from './lifecycle.js';
import type { InboxFileHost } from './lifecycle.js';
import { rebuildAfterBoot, rederive, type RebuildHost } from './index-rebuild.js';
import { ReadyIndex } from './ready-index.js';
import { probeDirectory } from './probe-directory.js';
import { assertWritable } from './sqlite-errors.js';
import { SqliteViewPort } from './view-port.js';
import { StoreWriter, threadClock, writerOpenInboxes } from './writer-thread.js';

/** How long the rebuild after a boot holds the event loop before it lets other work in (about 10 inboxes). */
const REBUILD_SLICE_MS = 10;
/** Deliveries to one inbox in one group commit that mark it as taking bursts (InboxDb.checkpointLessOften). */
const BURST = 16;
/** Opens of an inbox in one call that may find its file deleted (each by another deleteInbox). */
const REOPEN_ATTEMPTS = 3;

/** What the overview says about an inbox it could not read: the store's own reason, or the driver's message. */
function unreadableReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/; nothing was written$/, '');
}

export class SqliteStore implements StorePort, InboxFiles, InboxFileHost {
  readonly backend = 'sqlite';
  readonly dir: string;
  readonly options: ResolvedOptions;
  private readonly open: LRUCache<string, InboxDb>;
  private readonly index: ReadyIndex;
  private closed = false;
  private readonly listeners = new Set<WakeListener>();
  /** Ingests' commits on the process's writer thread (options.writerThread), or null: on this one. */
  private readonly writer: StoreWriter | null;
  private readonly ingestGroups = new IngestGroups((inboxId, events, quotas) => this.commitGroup(inboxId, events, events.length >= BURST, quotas));
  /** The rebuild after a boot (readyIndexSettled); resolved when there is none. */
  private readonly rebuild: Promise<void>;
  private readonly rebuildSliceMs: number;
  private closing: Promise<void> | null = null;
  /** Opened at the first sign-out or session check: most stores (the CLI, tests) never need it. */
  private sessions: EndedSessions | null = null;

  /**
   * For tests: `bootId`, which machine boot this is (boot-id.ts), and
   * `rebuildSliceMs`, how long the rebuild after a boot runs between turns;
   * for the writer thread's copy of a store (writer-worker.ts), `rebuild:
   * false`: the store it commits for runs the rebuild.
   */
  constructor(
    dir: string,
    options: StoreOptions = {},
    {
      bootId = currentBootId(),
      rebuildSliceMs = REBUILD_SLICE_MS,
      rebuild = true,
    }: { bootId?: string; rebuildSliceMs?: number; rebuild?: boolean } = {},
  ) {
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
    this.rebuildSliceMs = rebuildSliceMs;
    this.rebuild = !rebuild || this.index.rebuiltInBoot() === bootId ? Promise.resolve() : rebuildAfterBoot(this.rebuildHost(), bootId, this.rebuildSliceMs);
    const clock = this.options.writerThread ? threadClock(this.options.clock) : null;
    const { clock: _clock, writerThread: _writerThread, retention: _retention, ...rest } = this.options;
    this.writer =
      clock === null ? null : new StoreWriter({ dir: this.dir, options: { ...rest, maxOpenInboxes: writerOpenInboxes(rest.maxOpenInboxes) }, clock });
  }

  /** What the ready index's rebuild (index-rebuild.ts) may use of this store. */
  private rebuildHost(): RebuildHost {
    return {
      index: this.index,
      closed: () => this.closed,
      assertOpen: () => this.assertOpen(),
      inboxFileIds: () => this.inboxFileIds(),
      // A file that is not open already is opened for this alone, not through
      // the LRU: a rebuild over every inbox would push out the ones in use.
      visit: (inboxId) => {
        const cached = this.open.peek(inboxId);
        const c = cached ?? this.openFile(inboxId, false);
        return c === null ? null : { c, opened: cached === undefined };
      },
      wake: (inboxId, kind) => this.wake(inboxId, kind),
    };
  }

  /** Resolves when the ready index's rebuild after a machine boot (index-rebuild.ts) is done; at once when none runs. */
  readyIndexSettled(): Promise<void> {
    return this.rebuild;
  }

  now(): number {
    return readClock(this.options.clock as () => number);
  }

  inbox(id: string): SqliteInboxPort {
    return new SqliteInboxPort(this, id);
  }

  view(id: string): SqliteViewPort {
    return new SqliteViewPort(this, id);
  }

  /**
   * `passing`: a visit to every inbox (prune, export) opens a file that is
   * not open already for this call alone, outside the LRU, so that it does
   * not push out the inboxes in use.
   */
  use<T>(inboxId: string, create: boolean, fn: (c: InboxDb) => T, { passing = false }: { passing?: boolean } = {}): T | null {
    this.assertOpen();
    for (let attempt = 1; ; attempt++) {
      const cached = passing ? this.open.peek(inboxId) : undefined;
      const c = passing && cached === undefined ? this.openFile(inboxId, create) : this.connection(inboxId, create);
      if (c === null) return null;
      try {
        return fn(c);
      } catch (error) {
        // Deleted since this process opened it: the name now leads to a new file, or to none.
        if (!(error instanceof InboxFileDeleted) || attempt === REOPEN_ATTEMPTS) throw error;
        this.letGo(inboxId, c);
      } finally {
        if (passing && cached === undefined) c.close();
      }
    }
  }

  /** Closes the inbox's file if it is `c` (it was deleted); the next use opens it by name. */
  letGo(inboxId: string, c: InboxDb): void {
    if (this.open.peek(inboxId) === c) this.open.delete(inboxId);
    else c.close();
  }

  connection(inboxId: string, create: boolean): InboxDb | null {
    this.assertOpen();
    const cached = this.open.get(inboxId);
    if (cached !== undefined) return cached;
    const db = this.openFile(inboxId, create);
    if (db !== null) this.open.set(inboxId, db);
    return db;
  }

  fileOf(inboxId: string): string {
    return inboxFile(this.dir, inboxId);
  }

  get busyTimeoutMs(): number {
    return this.options.busyTimeoutMs;
  }

  /** The inbox's file, opened (not cached), or null when it has none and `create` is false. */
  private openFile(inboxId: string, create: boolean): InboxDb | null {
    const file = this.fileOf(inboxId);
    if (!existsSync(file)) {
      if (!create) return null;
      // The contract's case rule, on every file system: a new id must not differ from an existing one only in case.
      const other = this.index.sameIgnoringCase(inboxId);
      if (other !== undefined) throw caseCollision(inboxId, other);
    }
    try {
      assertOwnFile(inboxId, file);
    } catch (error) {
      // Its index row, if any, describes another inbox's file: drop it, so
      // that no worker keeps picking this inbox up.
      this.index.forget(inboxId);
      throw error;
    }
    const db = new InboxDb(inboxId, file, this.options, this.index, () => this.now());
    try {
      assertWritable(file);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }

  async inboxes(): Promise<string[]> {
    this.assertOpen();
    return this.inboxFileIds();
  }

  private inboxFileIds(): string[] {
    return inboxIdsInDir(this.dir);
  }

  /**
   * The ids, the counts over all pages and "needs attention" come from the
   * ready index alone (its wake_at and dead columns); only the page's inbox
   * files are opened, for their summaries.
   */
  async listInboxes({ search, after, limit, attention, stuckAfterMs }: CheckedInboxListQuery): Promise<InboxList> {
    this.assertOpen();
    const now = this.now();
    const page = this.index.page({ search, after, limit: limit + 1, attention, stuckBefore: now - stuckAfterMs });
    const listed = page.inboxes.slice(0, limit);
    const inboxes = listed.map(({ id, wakeAt }): InboxSummary => {
      const readySince = wakeAt !== null && wakeAt <= now ? wakeAt : null;
      try {
        return this.listed(id, (c) => c.read(() => inboxSummary(c, now, readySince))) ?? emptySummary(id);
      } catch (error) {
        // One corrupt or unreadable file is one row saying so; the rest of the page is read.
        if (isVigilError(error, 'store_closed')) throw error;
        return unreadableSummary(id, unreadableReason(error));
      }
    });
    return {
      inboxes,
      next: page.inboxes.length > limit ? listed[listed.length - 1]!.id : null,
      total: page.total,
      needAttention: page.needAttention,
      now,
    };
  }

  /**
   * `fn` on the file of an inbox the index lists, or null when there is none to
   * read: no file, an id no file could have, or a file that is another
   * inbox's (assertOwnFile; its row is dropped then). One such row must not
   * fail the whole overview.
   */
  private listed<T>(inboxId: string, fn: (c: InboxDb) => T): T | null {
    if (!INBOX_ID_PATTERN.test(inboxId)) return null;
    try {
      return this.use(inboxId, false, fn);
    } catch (error) {
      if (isVigilError(error, 'invalid_inbox_id')) return null;
      throw error;
    }
  }

  async readyInboxes(limit: number): Promise<string[]> {
    this.assertOpen();
    return this.index.ready(this.now(), limit);
  }

  /**
   * The page is the inboxes that may send earliest, but those whose files
   * are open come first: every one of them may send now, and a pass in send
   * order over more inboxes than the LRU holds would close each open file
   * (least recently used) before it got to it, then open it again.
   */
  async dispatchableInboxes(limit: number): Promise<string[]> {
    this.assertOpen();
    const page = this.index.dispatchable(this.now(), limit);
    const open = page.filter((id) => this.open.has(id));
    if (open.length === 0 || open.length === page.length) return page;
    return [...open, ...page.filter((id) => !this.open.has(id))];
  }

  async nextWake(): Promise<NextWake> {
    this.assertOpen();
    return { ...this.index.earliest(), now: this.now() };
  }

  async subscribe(listener: WakeListener): Promise<() => Promise<void>> {
    this.assertOpen();
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }

  async storeEvents(inboxId: string, events: CheckedEvent[], single: boolean, quota: InboxLimits | null): Promise<IngestResult[]> {
    if (single && events.length === 1) return [await this.ingestGroups.ingest(inboxId, events[0]!, quota)];
    return this.commitGroup(inboxId, events, false, events.map(() => quota));
  }

  /** On the writer thread when there is one: this thread then goes on parsing requests while the commit waits for the disk. */
  private commitGroup(inboxId: string, events: CheckedEvent[], burst: boolean, quotas: (InboxLimits | null)[]): IngestResult[] | Promise<IngestResult[]> {
    if (this.writer === null) return this.commitEvents(inboxId, events, burst, quotas);
    this.assertOpen();
    return this.writer.commit(inboxId, events, burst, quotas);
  }

  /** Group commits of single ingests so far, and the events in them: for benchmarks (events per transaction). */
  groupCommits(): { commits: number; events: number } {
    return { commits: this.ingestGroups.commits, events: this.ingestGroups.events };
  }

  /** Whether ingests commit on the writer thread (options.writerThread with a clock the thread can read). */
  get threaded(): boolean {
    return this.writer !== null;
  }

  /**
   * `burst`: a group commit of many deliveries at once (the inbox's WAL is
   * then checkpointed less often). Also what the writer thread runs, in its
   * own copy of the store (writer-worker.ts).
   */
  commitEvents(inboxId: string, events: CheckedEvent[], burst = false, quotas: readonly (InboxLimits | null)[] = []): IngestResult[] {
    return this.use(inboxId, true, (c) => {
      if (burst) c.checkpointLessOften();
      return c.write((now) => insertWithQuotas(c, events, quotas, now), { addsEventsOnly: true });
    }) as IngestResult[];
  }

  async notify(inboxId: string, kind: WakeKind): Promise<void> {
    this.wake(inboxId, kind);
  }

  /** This process's subscribers: the only ones a SQLite store has. */
  wake(inboxId: string, kind: WakeKind): void {
    for (const listener of this.listeners) listener(inboxId, kind);
  }

  /**
   * Re-derives the ready index from every inbox file, as rebuildAfterBoot
   * does by itself at the first open in each machine boot; by hand it is
   * for an index file damaged while the store is open.
   */
  async rebuildReadyIndex(): Promise<number> {
    const ids = await this.inboxes();
    const host = this.rebuildHost();
    for (const id of ids) rederive(host, id);
    return ids.length;
  }

  exportInbox(id: string): AsyncIterable<InboxRecord> {
    return lifecycle.exportInbox(this, id);
  }

  async deleteInbox(id: string): Promise<boolean> {
    this.assertOpen();
    return lifecycle.deleteInbox(this, id);
  }

  async importInbox(id: string, records: AsyncIterable<CheckedRecord>): Promise<number> {
    this.assertOpen();
    return lifecycle.importInbox(this, id, records);
  }

  closeInbox(inboxId: string): void {
    this.open.delete(inboxId);
  }

  unlist(inboxId: string): void {
    this.index.forget(inboxId);
  }

  list(inboxId: string): void {
    rederive(this.rebuildHost(), inboxId);
  }

  caseTwin(inboxId: string): string | undefined {
    return this.index.sameIgnoringCase(inboxId);
  }

  async probeWrites(): Promise<void> {
    this.assertOpen();
    await probeDirectory(this.dir);
  }

  async endSession(sessionId: string, expiresAt: number): Promise<void> {
    this.assertOpen();
    this.endedSessions().end(sessionId, expiresAt, this.now());
  }

  async sessionEnded(sessionId: string): Promise<boolean> {
    this.assertOpen();
    return this.endedSessions().ended(sessionId);
  }

  private endedSessions(): EndedSessions {
    this.sessions ??= new EndedSessions(this.dir, this.options.busyTimeoutMs);
    return this.sessions;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    await this.rebuild; // it stops at its next inbox
    await this.writer?.close(); // after the commits already sent to it
    this.listeners.clear();
    this.open.clear();
    this.index.close();
    this.sessions?.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new VigilError('store_closed', 'this store was closed; open a new one with openStore()');
  }
}

/**
 * The SQLite backend behind a store openStore('sqlite:…') returned: for
 * what only this backend has (rebuildReadyIndex, readyIndexSettled), and
 * for tests and benchmarks that look below the engine.
 */
export function sqliteBackendOf(store: Store): SqliteStore {
  const port = portOf(store);
  if (!(port instanceof SqliteStore)) throw new VigilError('invalid_argument', 'not a SQLite store');
  return port;
}
