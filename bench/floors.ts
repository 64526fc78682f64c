/**
 * Floors under ingestMany and the scheduler pass: the same rows into the
 * same schema (an inbox file made by Vigil's own migrations), at the same
 * durability (WAL, synchronous FULL, one BEGIN IMMEDIATE transaction per
 * call or pass), straight through better-sqlite3, with none of Vigil's code
 * around the SQL: no validation, no engine plan, no ready index, no
 * answer per event. What no code that keeps this schema and this durability
 * can beat; the reference's figures are measured against it in the same run.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Database as Db, RunResult, Statement } from 'better-sqlite3';
import type { InboxDb } from '../src/store/sqlite/inbox-db.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { elapsedSeconds, startTimer } from './timing.js';
import { payload, type IngestResult, type PassResult } from './workload.js';

const INBOX = 'floor';
const HOUR = 3_600_000;
const T0 = 1_000_000_000;
const FAR = 10_000 * HOUR;

/**
 * An empty inbox file with Vigil's schema, and the store's own connection to
 * it (WAL, synchronous FULL, as every inbox connection): the bare SQL runs on
 * exactly the file and connection Vigil's side would, minus Vigil's code.
 */
export async function bareInbox(
  scratch: string,
  name: string,
  fill?: (c: InboxDb, now: number) => void,
): Promise<{ db: Db; inbox: InboxDb; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(scratch, `floor-${name}-`));
  const store = new SqliteStore(dir, { clock: () => T0 - HOUR });
  const c = store.connection(INBOX, true) as InboxDb;
  if (fill !== undefined) c.write((now) => fill(c, now));
  return { db: c.db, inbox: c, close: () => store.close() };
}

/**
 * One prepared INSERT of `rows` rows, per size: OR IGNORE, as Vigil's, so a
 * taken key is skipped and SQLite keeps no statement journal
 * (src/store/sqlite/ingest.ts says why that is the cheaper form).
 */
export function inserter(db: Db): (rows: unknown[][], now: number) => RunResult {
  const bySize = new Map<number, Statement>();
  return (rows, now) => {
    let statement = bySize.get(rows.length);
    if (statement === undefined) {
      statement = db.prepare(`INSERT OR IGNORE INTO events (source, source_id, payload, received_at) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}`);
      bySize.set(rows.length, statement);
    }
    return statement.run(rows.flatMap((row) => [...row, now]));
  };
}

/** ingestMany's rows (the same keys and payloads as both sides'), `batch` per transaction, each batch one INSERT. */
export async function ingestManyFloor(scratch: string, n: number, batch: number): Promise<IngestResult> {
  const { db, close } = await bareInbox(scratch, 'many');
  try {
    const insert = inserter(db);
    const start = startTimer();
    for (let lo = 0; lo < n; lo += batch) {
      const rows: unknown[][] = [];
      for (let i = lo; i < Math.min(lo + batch, n); i++) rows.push(['chat', `msg-${i}`, JSON.stringify(payload(i))]);
      db.transaction(() => insert(rows, T0)).immediate();
    }
    return { seconds: elapsedSeconds(start), events: n };
  } finally {
    await close();
  }
}

/**
 * The scheduler pass's SQL on `total` interval timers of which `due` are
 * due, as the benchmark builds them: read the due timers in the order
 * Vigil fires them, insert their occurrence events (multi-row INSERTs of
 * 128), advance each timer, in one transaction. The occurrence arithmetic
 * is the one the benchmark's timers need (each fires on time, every hour).
 */
export class SchedulerFloor {
  private now = T0 - HOUR;
  private readonly select: Statement;
  private readonly advance: Statement;
  private readonly insert: (rows: unknown[][], now: number) => void;

  private constructor(
    private readonly db: Db,
    readonly close: () => Promise<void>,
  ) {
    this.select = db.prepare('SELECT id, due, every, payload FROM timers WHERE done = 0 AND due <= ? ORDER BY due, id').raw();
    this.advance = db.prepare('UPDATE timers SET due = ?, last_skipped = ? WHERE id = ?');
    this.insert = inserter(db);
  }

  static async create(scratch: string, total: number, due: number): Promise<SchedulerFloor> {
    const { db, close } = await bareInbox(scratch, 'sched', (c) => {
      const add = c.stmt("INSERT INTO timers (id, due, every, missed, payload) VALUES (?, ?, ?, 'coalesce', ?)");
      for (let i = 0; i < total; i++) add.run(i < due ? `due-${i}` : `later-${i}`, i < due ? T0 : T0 + FAR, HOUR, JSON.stringify({ n: i }));
    });
    return new SchedulerFloor(db, close);
  }

  pass(): PassResult {
    this.now += HOUR;
    const now = this.now;
    const { select, advance, insert } = this;
    const start = startTimer();
    const fired = this.db
      .transaction(() => {
        const timers = select.all(now) as [string, number, number, string][];
        for (let lo = 0; lo < timers.length; lo += 128) {
          insert(
            timers.slice(lo, lo + 128).map(([id, at, , body]) => ['timer', `${id}@${at}`, `${body.slice(0, -1)},"scheduledFor":${at},"lateBy":${now - at},"skipped":0}`]),
            now,
          );
        }
        for (const [id, at, every] of timers) advance.run(at + every, 0, id);
        return timers.length;
      })
      .immediate();
    return { seconds: elapsedSeconds(start), fired };
  }
}

/**
 * The one-event run cycle's row changes, bare, with the commits Vigil's
 * protocol makes: the lease taken and the event claimed each committed
 * without a flush (synchronous NORMAL for that transaction, as Vigil's
 * acquire and claimBatch commit), the event marked done and the reply
 * queued in one durable commit. Before each run, untimed, one pending event
 * is stored in a durable commit, as both sides ingest it; `preloadDone`
 * done events are in the file first. No fencing reads, repairs, retry
 * order, ready index or wake computation: what no code keeping Vigil's
 * schema and commits can beat. Its UPDATEs are OR IGNORE, as Vigil's are.
 */
export async function cycleFloor(scratch: string, runs: number, preloadDone: number): Promise<{ seconds: number; runs: number }> {
  const { db, close } = await bareInbox(scratch, 'cycle', (c, now) => {
    const add = c.stmt("INSERT INTO events (source, source_id, payload, status, attempts, received_at, finished_at) VALUES ('chat', ?, ?, 'done', 1, ?, ?)");
    for (let i = 0; i < preloadDone; i++) add.run(`old-${i}`, JSON.stringify(payload(i)), now, now);
  });
  try {
    const ingest = db.prepare("INSERT INTO events (source, source_id, payload, received_at) VALUES ('chat', ?, ?, ?)");
    const lease = db.prepare(
      `INSERT INTO lease (one, holder, gen, until) VALUES (1, 'worker', 1, ?)
       ON CONFLICT (one) DO UPDATE SET until = excluded.until`,
    );
    const claim = db.prepare(
      `UPDATE OR IGNORE events SET status = 'running', attempts = attempts + 1, claim_gen = 1, last_claim_at = ?
       WHERE id IN (SELECT id FROM events WHERE status = 'pending' AND attempts = 0 ORDER BY id LIMIT 100)
       RETURNING id, source, source_id, payload, attempts`,
    );
    const done = db.prepare("UPDATE OR IGNORE events SET status = 'done', error = NULL, finished_at = ? WHERE id = ? AND status = 'running' AND claim_gen = 1");
    const reply = db.prepare('INSERT INTO outbox (body, urgent, created_at) VALUES (?, 0, ?)');
    const relaxed = db.prepare('PRAGMA synchronous = NORMAL');
    const full = db.prepare('PRAGMA synchronous = FULL');
    const withoutFlush = <T>(fn: () => T): T => {
      relaxed.run();
      try {
        return db.transaction(fn).immediate();
      } finally {
        full.run();
      }
    };
    let now = T0;
    let seconds = 0;
    for (let r = 0; r < runs; r++) {
      db.transaction(() => ingest.run(`run-${r}-0`, JSON.stringify(payload(0)), now)).immediate();
      now += 1000;
      const start = startTimer();
      withoutFlush(() => lease.run(now + 120_000));
      const claimed = withoutFlush(() => claim.all(now)) as { id: number }[];
      db.transaction(() => {
        for (const event of claimed) done.run(now, event.id);
        reply.run(`reply to run ${r}`, now);
      }).immediate();
      seconds += elapsedSeconds(start);
      if (claimed.length !== 1) throw new Error(`cycle floor: run ${r} claimed ${claimed.length}`);
    }
    return { seconds, runs };
  } finally {
    await close();
  }
}
