/**
 * R1: each (source, sourceId) is stored once, by the unique key, never by a
 * read-then-write; a key whose event was pruned (prune.ts) stays refused by
 * its tombstone, read in the same statement.
 *
 * Every insert here is `INSERT OR IGNORE`: a row whose key is taken is
 * skipped, as `ON CONFLICT DO NOTHING` would. The difference is what else
 * it lets SQLite skip. A statement that may write several rows (a multi-row
 * VALUES, an INSERT ... SELECT) and may also stop half-way (the NOT NULL and
 * CHECK constraints abort by default) gets a statement journal: SQLite
 * copies every page the statement touches first, so that it could undo the
 * statement alone. With keys in random order (webhook delivery ids) each
 * row touches a page of its own, and past 64 KiB the copies go to a
 * temporary file: that doubled the CPU of a 32-row insert. Under OR IGNORE
 * no constraint aborts, so there is no statement journal. Nothing is given
 * up: a CheckedEvent's key and payload are strings and the clock's `now` an
 * integer (readClock), so no row here can break those constraints, and
 * Vigil never needs one statement undone without its whole transaction.
 */
import type { InboxLimits, InboxSettings } from '../contract.js';
import { admit, effectiveLimits, rateWindow, type IngestResult } from '../engine/quota.js';
import type { CheckedEvent } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';
import { readSettings } from './settings.js';

/** Exported, as insertManySql is, for the test that no form needs a statement journal. */
export const INSERT_EVENT = `
INSERT OR IGNORE INTO events (source, source_id, payload, received_at)
SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE source = ? AND source_id = ?)`;

const ANY_TOMBSTONE = 'SELECT EXISTS (SELECT 1 FROM tombstones)';
const KEYS_AFTER = 'SELECT source, source_id FROM events WHERE id > ?';

/**
 * Rows per multi-row INSERT: a batch goes in as chunks of powers of two
 * (100 events: 32 + 32 + 32 + 4), so at most six statements per form are
 * compiled per open file. Not more: a compiled statement grows with its
 * rows (about 17 KiB at 32 rows, 58 KiB at 128, held while the file is
 * open, up to 128 files), and past 32 rows a batch's CPU per event drops
 * no further.
 */
const MAX_ROWS = 32;

/**
 * `rows` events in one statement. Each row through better-sqlite3 is one
 * call into native code, a statement reset and a bind of its own; one
 * statement for many rows pays those once (a third of the CPU of
 * ingestMany's 100 events). Rows are inserted in the order given, so of
 * two events with the same key in one batch the first is stored.
 *
 * With tombstones (the inbox has pruned), each row reads its tombstone in
 * the same statement, as INSERT_EVENT does.
 */
export function insertManySql(rows: number, tombstones: boolean): string {
  const cache = tombstones ? SQL_WITH_TOMBSTONES : SQL_WITHOUT;
  let sql = cache.get(rows);
  if (sql === undefined) {
    sql = buildInsertMany(rows, tombstones);
    cache.set(rows, sql);
  }
  return sql;
}

/** The same string each time for a size: the statement cache finds it by its hash, computed once. */
const SQL_WITHOUT = new Map<number, string>();
const SQL_WITH_TOMBSTONES = new Map<number, string>();

function buildInsertMany(rows: number, tombstones: boolean): string {
  if (!tombstones) {
    return `
INSERT OR IGNORE INTO events (source, source_id, payload, received_at)
VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ')}`;
  }
  // The first parameter is received_at, shared by every row.
  return `
INSERT OR IGNORE INTO events (source, source_id, payload, received_at)
SELECT column1, column2, column3, ?
FROM (VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')})
WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE tombstones.source = column1 AND tombstones.source_id = column2)`;
}

/** True if stored, false for a duplicate (the first payload wins). */
export function insertEvent(c: InboxDb, event: CheckedEvent, now: number): boolean {
  const stored = c.stmt(INSERT_EVENT).run(event.source, event.sourceId, event.payloadJson, now, event.source, event.sourceId).changes === 1;
  if (stored) countPending(c, 1, Buffer.byteLength(event.payloadJson));
  return stored;
}

const COUNT_PENDING = 'UPDATE meta SET pending_events = pending_events + ?, pending_bytes = pending_bytes + ? WHERE one = 1';

/**
 * New pending events on the meta row's counts (migration 010): once per
 * insert statement here, where a trigger ran once per row; status changes
 * and deletes are counted by the migration's triggers.
 */
export function countPending(c: InboxDb, events: number, bytes: number): void {
  c.stmt(COUNT_PENDING).run(events, bytes);
}

/**
 * insertEvent for each, in order, in the caller's transaction, through
 * multi-row INSERTs. Whether the inbox has tombstones is read once, for all
 * of them: most inboxes have none, and then no insert reads that table (a
 * tenth of an insert's cost).
 *
 * Which events were stored is not asked of SQLite row by row (RETURNING
 * costs a fifth of the insert): a chunk that stored all or none of its rows
 * says so in its count of changes. Only a chunk that stored some reads back
 * the keys it stored: SQLite gives each new row one more than the highest
 * id in the table (ids are far from the 2^63 where it would pick at
 * random), so the `changes` rows a chunk stored are the ids up to the last
 * one it inserted, and the only ones above the id before them.
 */
export function insertEvents(c: InboxDb, events: readonly CheckedEvent[], now: number): boolean[] {
  if (events.length <= 1) return events.length === 0 ? [] : [insertEvent(c, events[0]!, now)];
  const tombstones = c.stmt(ANY_TOMBSTONE).pluck().get() === 1;
  const stored: boolean[] = [];
  let storedCount = 0;
  let storedBytes = 0;
  for (let from = 0; from < events.length; ) {
    let rows = MAX_ROWS;
    while (rows > events.length - from) rows >>= 1;
    const chunk = events.slice(from, from + rows);
    from += rows;
    const params: unknown[] = tombstones ? [now] : [];
    for (const event of chunk) {
      if (tombstones) params.push(event.source, event.sourceId, event.payloadJson);
      else params.push(event.source, event.sourceId, event.payloadJson, now);
    }
    const { changes, lastInsertRowid } = c.stmt(insertManySql(rows, tombstones)).run(params);
    const first = stored.length;
    if (changes === rows || changes === 0) {
      for (let i = 0; i < rows; i++) stored.push(changes === rows);
    } else {
      stored.push(...storedOf(c, chunk, Number(lastInsertRowid) - changes));
    }
    if (changes === 0) continue;
    storedCount += changes;
    for (let i = 0; i < rows; i++) if (stored[first + i] === true) storedBytes += Buffer.byteLength(chunk[i]!.payloadJson);
  }
  if (storedCount > 0) countPending(c, storedCount, storedBytes);
  return stored;
}

/** Which of `chunk` were stored, from the keys of the rows above `before`: a key's first event in the chunk. */
export function storedOf(c: InboxDb, chunk: readonly CheckedEvent[], before: number): boolean[] {
  // NUL cannot be in a key (validate/text.ts), so it separates source from sourceId.
  const fresh = new Set((c.stmt(KEYS_AFTER).raw().all(before) as [string, string][]).map(([source, sourceId]) => `${source}\u0000${sourceId}`));
  return chunk.map((event) => fresh.delete(`${event.source}\u0000${event.sourceId}`));
}

const READ_USAGE = 'SELECT pending_events, pending_bytes, rate_window, rate_count FROM meta WHERE one = 1';
const COUNT_RATE = 'UPDATE meta SET rate_window = ?, rate_count = ? WHERE one = 1';
const KEY_TAKEN = `
SELECT EXISTS (SELECT 1 FROM events WHERE source = ? AND source_id = ?)
    OR EXISTS (SELECT 1 FROM tombstones WHERE source = ? AND source_id = ?)`;

interface UsageRow {
  pending_events: number;
  pending_bytes: number;
  rate_window: number;
  rate_count: number;
}

/**
 * insertEvents for single ingests, each with its own quota or none (a
 * group commit may join both), in order, in the caller's transaction. A
 * quota asks the engine's rule (quota.ts, admit) with the usage as it
 * stands before that event, so events of one group count against each
 * other; one refused is checked for a duplicate first (a duplicate is
 * never refused: it stores nothing). The triggers of migration 010 keep the
 * pending counts; the minute's count is kept here, for stored events alone.
 *
 * Most groups are far within their limits: when the whole group, every
 * event counted as new, passes each event's quota, it goes in through the
 * multi-row insert (insertEvents) with one read and one write of the usage
 * row, as a group without quotas does; only a group near a limit is decided
 * event by event.
 */
export function insertWithQuotas(c: InboxDb, events: readonly CheckedEvent[], quotas: readonly (InboxLimits | null)[], now: number): IngestResult[] {
  if (!quotas.some((quota) => quota !== null)) return insertEvents(c, events, now);
  const settings = readSettings(c);
  const window = rateWindow(now);
  const whole = wholeGroup(c, events, quotas, settings, window, now);
  if (whole !== null) return whole;
  return events.map((event, i) => {
    const quota = quotas[i] ?? null;
    if (quota === null) return insertEvent(c, event, now);
    const row = c.stmt(READ_USAGE).get() as UsageRow;
    const thisMinute = row.rate_window === window ? row.rate_count : 0;
    const usage = { pendingEvents: row.pending_events, pendingBytes: row.pending_bytes, eventsThisMinute: thisMinute };
    const refused = admit(usage, effectiveLimits(quota, settings), 1, Buffer.byteLength(event.payloadJson));
    if (refused !== null) {
      const taken = c.stmt(KEY_TAKEN).pluck().get(event.source, event.sourceId, event.source, event.sourceId) === 1;
      return taken ? false : { refused, now };
    }
    const stored = insertEvent(c, event, now);
    if (stored) c.stmt(COUNT_RATE).run(window, thisMinute + 1);
    return stored;
  });
}

/** The group stored at once, if every quota in it holds with all of its events new; null to decide event by event. */
function wholeGroup(
  c: InboxDb,
  events: readonly CheckedEvent[],
  quotas: readonly (InboxLimits | null)[],
  settings: InboxSettings,
  window: number,
  now: number,
): IngestResult[] | null {
  const row = c.stmt(READ_USAGE).get() as UsageRow;
  const thisMinute = row.rate_window === window ? row.rate_count : 0;
  const usage = { pendingEvents: row.pending_events, pendingBytes: row.pending_bytes, eventsThisMinute: thisMinute };
  let bytes = 0;
  for (const event of events) bytes += Buffer.byteLength(event.payloadJson);
  for (const quota of quotas) {
    if (quota !== null && admit(usage, effectiveLimits(quota, settings), events.length, bytes) !== null) return null;
  }
  const stored = insertEvents(c, events, now);
  const counted = stored.filter((isStored, i) => isStored && quotas[i] !== null).length;
  if (counted > 0) c.stmt(COUNT_RATE).run(window, thisMinute + counted);
  return stored;
}
