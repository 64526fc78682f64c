/**
 * Vigil's SQLite store on the benchmark's work (see workload.ts), through
 * the public API with a fake clock. Store defaults throughout (WAL,
 * synchronous FULL, batchLimit 100) except where a step says its *setup*
 * uses a separate store; the timed part always runs on a default store.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeClock, openStore, type FakeClock, type Inbox, type NewEvent, type Store, type StoreOptions } from '../src/index.js';
import type { InboxDb } from '../src/store/sqlite/inbox-db.js';
import { SqliteStore, sqliteBackendOf } from '../src/store/sqlite/sqlite-store.js';
import { upsertTimer } from '../src/store/sqlite/timers.js';
import { validateTimer } from '../src/store/engine/validate/index.js';
import { elapsedSeconds, startTimer } from './timing.js';
import {
  payload,
  type BenchSide,
  type CycleParams,
  type CycleResult,
  type DispatchResult,
  type IngestResult,
  type PassResult,
  type SchedulerParams,
  type Timed,
} from './workload.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** Vigil's times are milliseconds: the reference's T0 seconds, in ms. */
const T0 = 1_000_000 * SECOND;
const FAR = 10_000 * HOUR;
const INBOX = 'bench';

interface OpenInbox {
  store: Store;
  inbox: Inbox;
  clock: FakeClock;
  dir: string;
}

interface SchedulerState extends OpenInbox {
  now: number;
  due: number;
}

/** What the SQLite connection of an inbox says about its own settings. */
export interface SqliteSettings {
  sqlite: string;
  journalMode: string;
  synchronous: number;
}

export class VigilSqliteSide implements BenchSide {
  readonly label = 'Vigil (SQLite)';
  private readonly schedulers = new Map<string, SchedulerState>();
  private counter = 0;

  /** `synchronous` other than the default is for diagnostics (`npm run bench -- --synchronous normal`). */
  constructor(
    private readonly tmp: string,
    private readonly synchronous: 'full' | 'normal' = 'full',
  ) {}

  /** Reads the pragmas off a real inbox connection (the store's internals; bench only). */
  async settings(): Promise<SqliteSettings> {
    const probe = await this.open('probe');
    await probe.inbox.ingest({ source: 'probe', sourceId: '1' });
    const connection = sqliteBackendOf(probe.store).connection(INBOX, false);
    if (connection === null) throw new Error('probe inbox has no file');
    const db = connection.db;
    const result = {
      sqlite: db.prepare('SELECT sqlite_version()').pluck().get() as string,
      journalMode: db.pragma('journal_mode', { simple: true }) as string,
      synchronous: db.pragma('synchronous', { simple: true }) as number,
    };
    await probe.store.close();
    return result;
  }

  async ingest(n: number): Promise<IngestResult> {
    const { store, inbox } = await this.open('ingest');
    const start = startTimer();
    for (let i = 0; i < n; i++) {
      if (!(await inbox.ingest({ source: 'chat', sourceId: `msg-${i}`, payload: payload(i) }))) throw new Error('unexpected duplicate');
    }
    const seconds = elapsedSeconds(start);
    await store.close();
    return { seconds, events: n };
  }

  async ingestConcurrent(n: number, inFlight: number): Promise<IngestResult> {
    const { store, inbox } = await this.open('ingest-concurrent');
    let next = 0;
    const start = startTimer();
    // `inFlight` callers, each awaiting its own ingest before sending the next.
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        for (let i = next++; i < n; i = next++) {
          if (!(await inbox.ingest({ source: 'chat', sourceId: `msg-${i}`, payload: payload(i) }))) throw new Error('unexpected duplicate');
        }
      }),
    );
    const seconds = elapsedSeconds(start);
    await store.close();
    return { seconds, events: n };
  }

  async ingestMany(n: number, batch: number): Promise<IngestResult> {
    const { store, inbox } = await this.open('ingest-many');
    const start = startTimer();
    for (let lo = 0; lo < n; lo += batch) {
      await inbox.ingestMany(events('msg', lo, Math.min(lo + batch, n)));
    }
    const seconds = elapsedSeconds(start);
    await store.close();
    return { seconds, events: n };
  }

  async cycle({ runs, perRun, preloadDone }: CycleParams): Promise<CycleResult> {
    const dir = this.freshDir('cycle');
    const clock = createFakeClock(T0);
    if (preloadDone > 0) await preloadDoneEvents(dir, clock, preloadDone);
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now, synchronous: this.synchronous });
    const inbox = store.inbox(INBOX);
    let seconds = 0;
    let claimed = 0;
    for (let r = 0; r < runs; r++) {
      if (perRun === 1) await inbox.ingest({ source: 'chat', sourceId: `run-${r}-0`, payload: payload(0) });
      else await inbox.ingestMany(events(`run-${r}`, 0, perRun));
      clock.advance(SECOND);
      const start = startTimer();
      const gen = await inbox.acquire('worker');
      if (gen === null) throw new Error(`run ${r}: lease refused`);
      const batch = await inbox.claimBatch('worker', gen);
      const ok = await inbox.finish(
        'worker',
        gen,
        batch.map((event) => event.id),
        { messages: [`reply to run ${r}`] },
      );
      seconds += elapsedSeconds(start);
      if (!ok || batch.length !== perRun) throw new Error(`run ${r}: finish=${ok}, claimed ${batch.length} of ${perRun}`);
      claimed += batch.length;
    }
    await store.close();
    return { seconds, runs, events: claimed };
  }

  async setupScheduler({ name, total, due }: SchedulerParams): Promise<Timed> {
    const dir = this.freshDir(`sched-${name}`);
    const clock = createFakeClock(T0 - HOUR);
    // Setup only. 100,000 addTimer calls are 100,000 transactions (minutes on
    // a slow disk), so the timers go in through the code addTimer runs
    // (validateTimer + upsertTimer), all in one of the store's transactions.
    const start = startTimer();
    const setup = new SqliteStore(dir, { clock: clock.now });
    try {
      const c = setup.connection(INBOX, true) as InboxDb;
      c.write((now) => {
        for (let i = 0; i < total; i++) {
          const spec =
            i < due
              ? { id: `due-${i}`, due: T0, every: HOUR, payload: { n: i } }
              : { id: `later-${i}`, due: T0 + FAR, every: HOUR, payload: { n: i } };
          const timer = validateTimer(spec, setup.options.maxPayloadBytes);
          upsertTimer(c, timer, timer.due ?? now);
        }
      });
    } finally {
      await setup.close();
    }
    const seconds = elapsedSeconds(start);
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now, synchronous: this.synchronous });
    this.schedulers.set(name, { store, inbox: store.inbox(INBOX), clock, dir, now: T0 - HOUR, due });
    return { seconds };
  }

  async schedulerPass(name: string): Promise<PassResult> {
    const state = this.scheduler(name);
    state.now += HOUR;
    state.clock.set(state.now);
    const start = startTimer();
    const fired = await state.inbox.runScheduler();
    const seconds = elapsedSeconds(start);
    if (fired !== state.due) throw new Error(`pass at ${state.now} fired ${fired}, expected ${state.due}`);
    return { seconds, fired };
  }

  async idlePasses(name: string, passes: number): Promise<number[]> {
    const state = this.scheduler(name);
    state.clock.set(state.now + SECOND);
    const times: number[] = [];
    for (let i = 0; i < passes; i++) {
      const start = startTimer();
      const fired = await state.inbox.runScheduler();
      times.push(elapsedSeconds(start));
      if (fired !== 0) throw new Error('idle pass fired timers');
    }
    return times;
  }

  async dropScheduler(name: string): Promise<void> {
    await this.scheduler(name).store.close();
    this.schedulers.delete(name);
  }

  async dispatch(messages: number): Promise<DispatchResult> {
    const { store, inbox, clock } = await this.open('dispatch');
    await inbox.ingest({ source: 'chat', sourceId: 'ask', payload: payload(0) });
    const gen = (await inbox.acquire('worker')) as number;
    const batch = await inbox.claimBatch('worker', gen);
    const queued = Array.from({ length: messages }, (_, i) => `message ${i}`);
    await inbox.finish(
      'worker',
      gen,
      batch.map((event) => event.id),
      { messages: queued },
    );
    clock.advance(SECOND);
    const bodies: string[] = [];
    const start = startTimer();
    const sent = await inbox.dispatch((body) => {
      bodies.push(body);
    });
    const seconds = elapsedSeconds(start);
    if (sent !== messages || bodies.length !== 1) throw new Error(`dispatch sent ${sent} of ${messages}`);
    await store.close();
    return { seconds, sent };
  }

  /**
   * One held message in each of `inboxes` inboxes, queued untimed by a run
   * each; timed: the pass a dispatcher makes, dispatchableInboxes and each
   * inbox's dispatch, with the store's defaults (its LRU keeps 128 files
   * open, so most inboxes are opened during the pass).
   */
  async dispatchSpread(inboxes: number): Promise<DispatchResult> {
    const dir = this.freshDir('dispatch-spread');
    const clock = createFakeClock(T0);
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now, synchronous: this.synchronous });
    for (let i = 0; i < inboxes; i++) {
      const inbox = store.inbox(`user-${i}`);
      await inbox.ingest({ source: 'chat', sourceId: 'ask', payload: payload(i) });
      const gen = (await inbox.acquire('worker')) as number;
      const batch = await inbox.claimBatch('worker', gen);
      await inbox.finish('worker', gen, batch.map((event) => event.id), { messages: [`reply ${i}`] });
      await inbox.release('worker', gen);
    }
    clock.advance(SECOND);
    let sent = 0;
    const start = startTimer();
    const ids = await store.dispatchableInboxes({ limit: inboxes });
    for (const id of ids) sent += await store.inbox(id).dispatch(() => undefined);
    const seconds = elapsedSeconds(start);
    if (sent !== inboxes) throw new Error(`dispatch pass sent ${sent} of ${inboxes}`);
    await store.close();
    return { seconds, sent };
  }

  async close(): Promise<void> {
    for (const name of [...this.schedulers.keys()]) await this.dropScheduler(name);
  }

  private scheduler(name: string): SchedulerState {
    const state = this.schedulers.get(name);
    if (state === undefined) throw new Error(`no scheduler inbox ${name}`);
    return state;
  }

  private freshDir(name: string): string {
    return mkdtempSync(join(this.tmp, `vigil-${name}-${++this.counter}-`));
  }

  private async open(name: string): Promise<OpenInbox> {
    const dir = this.freshDir(name);
    const clock = createFakeClock(T0);
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now, synchronous: this.synchronous });
    // The reference's connect() creates its file and schema before any timer starts; a Vigil
    // inbox file is created by its first write. Create it here too (store internals; bench only),
    // so neither side's timed loop pays for creating a database.
    sqliteBackendOf(store).connection(INBOX, true);
    return { store, inbox: store.inbox(INBOX), clock, dir };
  }
}

function events(prefix: string, from: number, to: number): NewEvent[] {
  const list: NewEvent[] = [];
  for (let i = from; i < to; i++) list.push({ source: 'chat', sourceId: `${prefix}-${i}`, payload: payload(i) });
  return list;
}

async function withStore(dir: string, options: StoreOptions, fn: (inbox: Inbox) => Promise<void>): Promise<void> {
  const store = await openStore(`sqlite:${dir}`, options);
  try {
    await fn(store.inbox(INBOX));
  } finally {
    await store.close();
  }
}

/**
 * `n` events already done (setup, not timed), through the public API: a
 * separate store whose batchLimit lets one run claim them all, as the
 * reference's unbounded claim does. Its worker releases the lease after.
 */
async function preloadDoneEvents(dir: string, clock: FakeClock, n: number): Promise<void> {
  await withStore(dir, { clock: clock.now, batchLimit: n }, async (inbox) => {
    for (let lo = 0; lo < n; lo += 1000) await inbox.ingestMany(events('old', lo, Math.min(lo + 1000, n)));
    const gen = (await inbox.acquire('preloader')) as number;
    const batch = await inbox.claimBatch('preloader', gen);
    if (batch.length !== n) throw new Error(`preload claimed ${batch.length} of ${n}`);
    await inbox.finish(
      'preloader',
      gen,
      batch.map((event) => event.id),
    );
    await inbox.release('preloader', gen);
  });
}
