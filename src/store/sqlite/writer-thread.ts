/**
 * The SQLite store's writer thread (StoreOptions.writerThread): ingests are
 * committed on a worker thread, so that the main thread parses HTTP
 * requests while a commit waits for its fsync. `vigil serve` saturated one
 * core with both (every commit ran on the event loop, ~45% of its busy
 * time, most of it waiting for the disk) while the second core idled.
 *
 * One thread per process, shared by every store that asks for it: each
 * store is opened in it as a SqliteStore of its own (writer-worker.ts),
 * which runs the very code the main thread would (commitEvents: InboxDb.write
 * around insertEvent), on connections of its own, as a second process on
 * the same directory would. So every rule holds as it does across
 * processes: each commit is one BEGIN IMMEDIATE transaction, WAL +
 * synchronous FULL, the ready index lowered before COMMIT and settled
 * after. A caller's promise resolves when the thread answers, after its
 * commit: `true` still means durable.
 *
 * Rejected: a thread per store (a thread costs ~1 s to start from source
 * under tsx and a few MB; a test suite opens hundreds of stores), and
 * moving every write of the store to the thread (claims, finishes and
 * timers are a worker pool's, a few per run, and the engine plans them
 * synchronously inside the transaction: the planner would have to cross
 * threads).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sharedTimeOf, systemClock } from '../../clock.js';
import { VigilError } from '../../errors.js';
import type { InboxLimits } from '../contract.js';
import type { IngestResult } from '../engine/quota.js';
import type { CheckedEvent } from '../engine/validate/index.js';
import type { ResolvedOptions } from '../options.js';
import { fromWire, packEvents, packQuotas, type FromWriter, type ThreadClock, type ToWriter, type WriterStoreSpec } from './writer-protocol.js';

/**
 * Inbox files the thread's copy of a store keeps open: its own LRU, beside
 * the store's (maxOpenInboxes), so every file open on both costs a second
 * connection, ~0.3 MB of native memory each (SQLite's 120 KB lookaside, the
 * schema, the page cache, the prepared inserts). The thread only commits
 * ingests, which come in bursts to few inboxes at a time (a group commit
 * per inbox), so it keeps fewer: `vigil serve` with 10,000 idle inboxes
 * went from ~84 MB to ~204 MB resident after one webhook to each of 1,000
 * of them with 128 here, ~177 MB with 32, ~172 MB with 16 (bench/memory.ts's
 * setup). The price: reopening a file the store has open costs ~5 ms on
 * this thread, paid by ingests spread over more than 32 inboxes at once.
 */
export const WRITER_OPEN_INBOXES = 32;

export function writerOpenInboxes(maxOpenInboxes: number): number {
  return Math.min(maxOpenInboxes, WRITER_OPEN_INBOXES);
}

/** How long the thread outlives the last store using it: a test suite that opens one store after another keeps one thread. */
const LINGER_MS = 2_000;

/** The clock as the thread can read it, or null for a clock function it cannot call (then the store commits on its own thread). */
export function threadClock(clock: ResolvedOptions['clock']): ThreadClock | null {
  if (clock === systemClock) return { kind: 'system' };
  if (clock === 'database') return null;
  const cell = sharedTimeOf(clock);
  return cell === undefined ? null : { kind: 'shared', cell };
}

/**
 * From the built package the worker is plain JavaScript beside this file.
 * From source (tests, benchmarks, `tsx`) it is TypeScript, and a worker
 * does not inherit the tsx loader: `--import tsx` in a worker's execArgv
 * does not reach its entry on Node 20, so the worker registers tsx's loader
 * itself (tsx/esm/api's register()) and then imports the entry.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./writer-worker.js', here));
  // The package's ESM entry of 'tsx/esm/api' (require.resolve gives the CommonJS one beside it).
  const api = pathToFileURL(createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = new URL('./writer-worker.ts', here).href;
  const boot = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, execArgv: [] });
}

interface Call {
  resolve: (answer: FromWriter) => void;
  reject: (error: unknown) => void;
}

class WriterThread {
  private readonly worker: Worker;
  private readonly calls = new Map<number, Call>();
  private nextCall = 1;
  /** Why the thread is gone; null while it runs. */
  gone: Error | null = null;

  constructor(private readonly onGone: (thread: WriterThread) => void) {
    this.worker = startWorker();
    // Idle, it keeps no process alive; a commit under way does (ask()).
    this.worker.unref();
    this.worker.on('message', (answer: FromWriter) => this.answer(answer));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (code ${code})`)));
  }

  send(message: ToWriter): void {
    this.worker.postMessage(message);
  }

  /** Sends a call and resolves with the thread's answer to it. */
  ask(message: ToWriter & { call: number }): Promise<FromWriter> {
    if (this.gone !== null) return Promise.reject(lost(this.gone));
    return new Promise((resolve, reject) => {
      if (this.calls.size === 0) this.worker.ref();
      this.calls.set(message.call, { resolve, reject });
      this.worker.postMessage(message);
    });
  }

  newCall(): number {
    return this.nextCall++;
  }

  terminate(): void {
    this.gone ??= new Error('the SQLite writer thread was stopped');
    this.onGone(this);
    void this.worker.terminate();
  }

  private answer(answer: FromWriter): void {
    const call = this.calls.get(answer.call);
    if (call === undefined) return;
    this.calls.delete(answer.call);
    if (this.calls.size === 0) this.worker.unref();
    call.resolve(answer);
  }

  /**
   * The thread died (a native crash, out of memory): every call waiting on
   * it fails, and the next commit starts a new thread. A commit it was
   * running may or may not have reached the disk; the caller hears an
   * error, never a false `true`, and a retry is safe (R1 stores a key once).
   */
  private fail(error: Error): void {
    if (this.gone === null) {
      this.gone = error;
      this.onGone(this);
    }
    const calls = [...this.calls.values()];
    this.calls.clear();
    for (const call of calls) call.reject(lost(this.gone));
  }
}

function lost(cause: Error): VigilError {
  return new VigilError('store_unavailable', `the SQLite writer thread stopped (${cause.message}); the ingest may or may not be stored, and retrying it is safe`, { cause });
}

/** The process's thread, the stores attached to it, and the timer that ends it once none is. */
let current: WriterThread | null = null;
let attached = 0;
let linger: NodeJS.Timeout | null = null;
let nextStore = 1;

function liveThread(): WriterThread {
  current ??= new WriterThread((thread) => {
    if (current === thread) current = null;
  });
  return current;
}

/** One store's commits on the process's writer thread. */
export class StoreWriter {
  private readonly id = nextStore++;
  /** The thread this store was opened on: a new thread (the last one died) opens it again. */
  private openedOn: WriterThread | null = null;
  private closed = false;

  constructor(private readonly spec: WriterStoreSpec) {
    attached += 1;
    if (linger !== null) {
      clearTimeout(linger);
      linger = null;
    }
  }

  /** Stores the events of one inbox in one transaction on the thread (SqliteStore.commitEvents there), one result per event. */
  async commit(inboxId: string, events: CheckedEvent[], burst: boolean, quotas: readonly (InboxLimits | null)[]): Promise<IngestResult[]> {
    const thread = this.thread();
    const answer = await thread.ask({ type: 'commit', call: thread.newCall(), store: this.id, inboxId, events: packEvents(events), burst, quotas: packQuotas(quotas) });
    if (answer.type === 'failed') throw fromWire(answer.error);
    if (answer.type !== 'committed') throw new Error(`the SQLite writer thread answered a commit with ${answer.type}`);
    return answer.results;
  }

  /** Closes this store's connections on the thread (after the commits sent before); the thread ends when no store uses it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      const thread = this.openedOn;
      if (thread !== null && thread === current) {
        const answer = await thread.ask({ type: 'close', call: thread.newCall(), store: this.id });
        if (answer.type === 'failed') throw fromWire(answer.error);
      }
    } finally {
      attached -= 1;
      if (attached === 0 && current !== null) {
        const thread = current;
        linger = setTimeout(() => {
          linger = null;
          if (attached === 0) thread.terminate();
        }, LINGER_MS);
        linger.unref();
      }
    }
  }

  private thread(): WriterThread {
    if (this.closed) throw new VigilError('store_closed', 'this store was closed; open a new one with openStore()');
    const thread = liveThread();
    if (this.openedOn !== thread) {
      thread.send({ type: 'open', store: this.id, spec: this.spec });
      this.openedOn = thread;
    }
    return thread;
  }
}
