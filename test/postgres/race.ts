/**
 * Several OS processes racing on the same inboxes of one PostgreSQL schema
 * (test/fixtures/pg-race-worker.ts), and the checks of what they did:
 *   - one holder per inbox at any time: no two workers' lease intervals
 *     overlap, on the wall clock the database decides with (whole ms);
 *   - one holder per generation;
 *   - R1 across processes: every key stored once;
 *   - no event done twice, no reply queued twice, no message sent twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import type { RaceRecord, RaceWorkerConfig } from '../fixtures/pg-race-worker.js';
import type { TestDatabase } from './test-database.js';

type Grant = Extract<RaceRecord, { kind: 'grant' }>;

export interface RaceOptions {
  /** One entry per worker process: its machine clock's offset from real time. */
  skews: number[];
  inboxes: number;
  iterations: number;
  leaseTtlMs: number;
  stallEvery: number;
  keysPerInbox: number;
}

export interface RaceReport {
  records: RaceRecord[];
  grants: Grant[];
  /** Pairs of different leases on the same inbox whose intervals overlap. */
  overlaps: string[];
  /** Generations of one inbox held by two holders. */
  sharedGens: string[];
  storedTwice: string[];
  doneTwice: string[];
  sentTwice: number[];
  /** After the drain: every event, by status. */
  statuses: Record<string, number>;
  events: number;
  /** Reply bodies in the outbox, and how many distinct. */
  replies: number;
  distinctReplies: number;
  /** Replies missing for done events. */
  missingReplies: string[];
  unsent: number;
}

const WORKER = fileURLToPath(new URL('../fixtures/pg-race-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children = new Set<ChildProcess>();

/** Kills (by PID) any worker still running, e.g. after a test timed out. */
export function killWorkers(): void {
  for (const child of children) {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
  children.clear();
}

export async function runRace(db: TestDatabase, options: RaceOptions): Promise<RaceReport> {
  const schema = db.freshSchema('race');
  const inboxes = Array.from({ length: options.inboxes }, (_, i) => `inbox-${i}`);
  const storeOptions = { schema, leaseTtlMs: options.leaseTtlMs, outboxGapMs: 0, maxAttempts: 1_000, retryBackoff: { baseMs: 0, maxMs: 0 } };
  // Migrate first: concurrent migration has its own test.
  await (await openStore(db.url, storeOptions)).close();

  // Every worker opens its store, then all start their loops at once.
  const starts: (() => void)[] = [];
  const ready = (start: () => void): void => {
    starts.push(start);
    if (starts.length === options.skews.length) for (const go of starts) go();
  };
  const outputs = await Promise.all(
    options.skews.map((skewMs, n) =>
      runWorker(ready, {
        url: db.url,
        schema,
        holder: `W${n}`,
        inboxes,
        iterations: options.iterations,
        leaseTtlMs: options.leaseTtlMs,
        skewMs,
        stallEvery: options.stallEvery,
        keysPerInbox: options.keysPerInbox,
      }),
    ),
  );
  const records = outputs.flat();

  // Drain what the workers left (stalled claims included) with a clock an
  // hour ahead: every lease has expired by then, without waiting for it.
  const drainClock = Date.now() + 3_600_000;
  const drain = await openStore(db.url, { ...storeOptions, clock: () => drainClock });
  try {
    for (const id of inboxes) records.push(...(await drainInbox(drain, id)));
    return await check(drain, inboxes, records);
  } finally {
    await drain.close();
  }
}

function runWorker(ready: (start: () => void) => void, config: RaceWorkerConfig): Promise<RaceRecord[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      cwd: ROOT,
      env: { ...process.env, VIGIL_RACE: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let announced = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!announced && stdout.includes('"kind":"ready"')) {
        announced = true;
        ready(() => child.stdin.end('go\n'));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      if (code !== 0) {
        reject(new Error(`worker ${config.holder} exited with ${code ?? signal}:\n${stderr.slice(-3000)}`));
        return;
      }
      const records = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as RaceRecord);
      if (!records.some((r) => r.kind === 'end')) reject(new Error(`worker ${config.holder} did not finish its loop`));
      else resolve(records);
    });
  });
}

async function drainInbox(store: Store, inboxId: string): Promise<RaceRecord[]> {
  const inbox = store.inbox(inboxId);
  const records: RaceRecord[] = [];
  const gen = await inbox.acquire('drain');
  if (gen === null) throw new Error(`drain could not take the lease of ${inboxId}`);
  for (let round = 0; round < 10_000; round++) {
    const batch = await inbox.claimBatch('drain', gen);
    if (batch.length === 0) break;
    const messages = batch.map((event) => `reply:${inboxId}:${event.sourceId}`);
    if (!(await inbox.finish('drain', gen, batch.map((e) => e.id), { messages }))) throw new Error('drain finish refused');
    records.push({
      kind: 'grant',
      inbox: inboxId,
      holder: 'drain',
      gen,
      askedAt: Number.POSITIVE_INFINITY, // after every worker: not part of the overlap check
      heldFrom: Number.POSITIVE_INFINITY,
      heldUntil: Number.POSITIVE_INFINITY,
      stalled: false,
      finished: true,
      released: false,
      done: batch.map((event) => event.sourceId),
    });
  }
  await inbox.dispatch((_body, sent) => {
    records.push({ kind: 'sent', inbox: inboxId, ids: sent.map((m) => m.id), bodies: sent.map((m) => m.body) });
  });
  return records;
}

async function check(store: Store, inboxes: string[], records: RaceRecord[]): Promise<RaceReport> {
  const grants = records.filter((r): r is Grant => r.kind === 'grant');
  const statuses: Record<string, number> = {};
  let events = 0;
  let unsent = 0;
  const replies: string[] = [];
  const missingReplies: string[] = [];
  for (const id of inboxes) {
    const inbox = store.inbox(id);
    const rows = await inbox.events({ limit: 10_000 });
    events += rows.length;
    for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    unsent += (await inbox.stats()).outbox.held;
    const sentBodies = records.filter((r) => r.kind === 'sent' && r.inbox === id).flatMap((r) => (r.kind === 'sent' ? r.bodies : []));
    replies.push(...sentBodies);
    for (const row of rows) {
      if (row.status === 'done' && !sentBodies.includes(`reply:${id}:${row.sourceId}`)) missingReplies.push(`${id}/${row.sourceId}`);
    }
  }
  return {
    records,
    grants,
    overlaps: findOverlaps(grants.filter((g) => g.holder !== 'drain')),
    sharedGens: duplicates(grants.map((g) => `${g.inbox} gen ${g.gen}`), grants.map((g) => g.holder)),
    storedTwice: duplicates(records.flatMap((r) => (r.kind === 'stored' ? [`${r.inbox}/${r.key}`] : []))),
    doneTwice: duplicates(grants.flatMap((g) => g.done.map((key) => `${g.inbox}/${key}`))),
    sentTwice: duplicates(records.flatMap((r) => (r.kind === 'sent' ? r.ids : []))).map(Number),
    statuses,
    events,
    replies: replies.length,
    distinctReplies: new Set(replies).size,
    missingReplies,
    unsent,
  };
}

/**
 * Each lease (inbox, holder, gen) is held from its first grant's heldFrom
 * to its last grant's heldUntil: a renewal by the same holder keeps the
 * generation, and the last grant decides how it ended (a release ends even
 * the time an earlier hung run of the same lease still counted on). Two
 * different leases of one inbox must never be held at the same instant.
 */
export function findOverlaps(grants: readonly Grant[]): string[] {
  const leases = new Map<string, { inbox: string; name: string; from: number; until: number; lastFrom: number }>();
  for (const g of grants) {
    const name = `${g.holder} gen ${g.gen}`;
    const key = `${g.inbox}\u0000${name}`;
    const lease = leases.get(key);
    if (lease === undefined) {
      leases.set(key, { inbox: g.inbox, name, from: g.heldFrom, until: g.heldUntil, lastFrom: g.heldFrom });
    } else {
      lease.from = Math.min(lease.from, g.heldFrom);
      if (g.heldFrom > lease.lastFrom) {
        lease.lastFrom = g.heldFrom;
        lease.until = g.heldUntil;
      }
    }
  }
  const all = [...leases.values()].sort((a, b) => a.from - b.from);
  const overlaps: string[] = [];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length && all[j]!.from < all[i]!.until; j++) {
      const [a, b] = [all[i]!, all[j]!];
      if (a.inbox === b.inbox) {
        overlaps.push(`${a.inbox}: ${a.name} [${a.from.toFixed(3)}, ${a.until.toFixed(3)}] and ${b.name} [${b.from.toFixed(3)}, ${b.until.toFixed(3)}]`);
      }
    }
  }
  return overlaps;
}

/** Values seen more than once; with `owners`, keys seen with more than one distinct owner. */
function duplicates(keys: (string | number)[], owners?: string[]): string[] {
  const seen = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  keys.forEach((key, i) => {
    const k = String(key);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (owners !== undefined) {
      const set = seen.get(k) ?? new Set<string>();
      set.add(owners[i]!);
      seen.set(k, set);
    }
  });
  if (owners !== undefined) return [...seen].filter(([, set]) => set.size > 1).map(([k, set]) => `${k}: ${[...set].join(', ')}`);
  return [...counts].filter(([, n]) => n > 1).map(([k]) => k);
}

/** Every check of the race, as assertions. */
export function expectCleanRace(report: RaceReport): void {
  expect(report.overlaps).toEqual([]);
  expect(report.sharedGens).toEqual([]);
  expect(report.storedTwice).toEqual([]);
  expect(report.records.filter((r) => r.kind === 'stored')).toHaveLength(report.events);
  expect(report.doneTwice).toEqual([]);
  expect(report.statuses).toEqual({ done: report.events });
  expect(report.sentTwice).toEqual([]);
  expect(report.replies).toBe(report.events);
  expect(report.distinctReplies).toBe(report.events);
  expect(report.missingReplies).toEqual([]);
  expect(report.unsent).toBe(0);
}
