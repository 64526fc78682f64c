/**
 * importInbox on SQLite: the records are written into a staging file beside
 * the inbox files (a name no inbox can have, so nothing lists it), which is
 * then linked in under the inbox's name. A link refuses to replace a file,
 * so an inbox written meanwhile is never overwritten, and a crash at any
 * point leaves either no inbox or the whole of it: all or nothing without
 * holding one transaction, or the records, in memory for the whole import.
 */
import { closeSync, fsyncSync, openSync, unlinkSync } from 'node:fs';
import Database from 'better-sqlite3';
import { VigilError } from '../../errors.js';
import { MAX_TIME_MS, type CheckedRecord } from '../engine/validate/index.js';
import { USAGE_EXPORT_COLUMNS, usageValues } from '../inbox-records.js';
import { migrate, useIncrementalVacuum } from './migrate.js';
import { translateSqliteError } from './sqlite-errors.js';

/** Records per transaction of the staging file (nothing reads it before it is complete). */
const BATCH = 1_000;

/**
 * Writes every record into `staging` (created, never reused) and makes it
 * durable. Throws a VigilError naming the record that could not be
 * written; the caller removes the staging file.
 */
export async function writeStagingFile(staging: string, records: AsyncIterable<CheckedRecord>): Promise<number> {
  const db = new Database(staging);
  try {
    useIncrementalVacuum(db, 'new');
    // Durability comes once, at the end (fsync below): until it is linked in, a crash loses only a file no one reads.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    migrate(db, staging);
    const writer = new RecordWriter(db);
    let batch: CheckedRecord[] = [];
    let n = 0;
    const flush = (): void => {
      const first = n - batch.length + 1;
      db.transaction(() => batch.forEach((record, i) => writer.write(record, first + i)))();
      batch = [];
    };
    for await (const record of records) {
      n++;
      batch.push(record);
      if (batch.length === BATCH) flush();
    }
    flush();
    db.close();
    syncFile(staging);
    return n;
  } catch (error) {
    if (db.open) db.close();
    throw translateSqliteError(error, staging);
  }
}

export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

class RecordWriter {
  private readonly insert: Record<string, Database.Statement>;

  constructor(private readonly db: Database.Database) {
    const prepare = (sql: string): Database.Statement => db.prepare(sql);
    this.insert = {
      settings: prepare(
        `INSERT INTO settings (one, json, gap_ms, debounce_ms, max_wait_ms) VALUES (1, @json, @gapMs, @debounceMs, @maxWaitMs)
         ON CONFLICT (one) DO UPDATE SET json = excluded.json, gap_ms = excluded.gap_ms,
           debounce_ms = excluded.debounce_ms, max_wait_ms = excluded.max_wait_ms`,
      ),
      // An expired lease of no worker: the next acquire takes over with gen + 1, past every claim the export held.
      // Expired at the earliest time there is (bounds.ts), not at -(2^53-1): a running event's stalled wake is
      // until + 1, which the overview shows as a date; at -(2^53-1) that was no date and the overview failed.
      lease: prepare(
        `INSERT INTO lease (one, holder, gen, until) VALUES (1, 'import', ?, ${-MAX_TIME_MS})
         ON CONFLICT (one) DO UPDATE SET gen = excluded.gen`,
      ),
      pacing: prepare('UPDATE outbox_pacing SET last_paced_at = ?, not_before = ?, day = ?, day_sends = ? WHERE one = 1'),
      event: prepare(
        `INSERT INTO events (source, source_id, payload, status, attempts, error, last_error, received_at, finished_at, claim_gen, last_claim_at)
         VALUES (@source, @sourceId, @payloadJson, @status, @attempts, @error, @lastError, @receivedAt, @finishedAt, @claimGen, @lastClaimAt)`,
      ),
      // The quotas' counts (migration 010), as ingest.ts keeps them for its inserts.
      pending: prepare('UPDATE meta SET pending_events = pending_events + 1, pending_bytes = pending_bytes + ? WHERE one = 1'),
      tombstone: prepare('INSERT INTO tombstones (source, source_id) VALUES (?, ?)'),
      message: prepare('INSERT INTO outbox (body, urgent, channel, created_at, sent_at) VALUES (?, ?, ?, ?, ?)'),
      failure: prepare('INSERT INTO outbox_failures (message_id, channel, kind, error, failed_at, redriven_at) VALUES (?, ?, ?, ?, ?, ?)'),
      approval: prepare(
        `INSERT INTO approvals (id, action, requested_at, expires_at, answer, answered_at, remind_at, reminded_at)
         VALUES (@id, @actionJson, @requestedAt, @expiresAt, @answer, @answeredAt, @remindAt, @remindedAt)`,
      ),
      timer: prepare(
        `INSERT INTO timers (id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      memory: prepare('INSERT INTO memory (key, value, updated_at) VALUES (?, ?, ?)'),
      session: prepare('INSERT INTO session (one, state, updated_at) VALUES (1, ?, ?) ON CONFLICT (one) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at'),
      action: prepare('INSERT INTO operator_actions (at, actor, action, target, result) VALUES (?, ?, ?, ?, ?)'),
      effect: prepare(
        `INSERT INTO effects (key, tool, input, input_hash, state, gen, intended_at, started_at, settled_at)
         VALUES (@key, @tool, @inputJson, @inputHash, @state, @gen, @intendedAt, @startedAt, @settledAt)`,
      ),
      usage: prepare(`INSERT INTO usage (${USAGE_EXPORT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    };
  }

  write(record: CheckedRecord, n: number): void {
    try {
      this.writeOne(record);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new VigilError('invalid_argument', `record ${n} (${record.type}): ${describeTwice(record)} appears twice in the records`);
      }
      throw error;
    }
  }

  private writeOne(r: CheckedRecord): void {
    const s = this.insert;
    switch (r.type) {
      case 'settings':
        s.settings!.run({ json: r.settings.json, gapMs: r.settings.gapMs, debounceMs: r.settings.debounceMs, maxWaitMs: r.settings.maxWaitMs });
        return;
      case 'lease':
        s.lease!.run(r.gen);
        return;
      case 'pacing':
        s.pacing!.run(r.lastPacedAt, r.notBefore, r.day, r.daySends);
        return;
      case 'event':
        s.event!.run(r);
        // Unfinished ones count against the quotas (migration 010), as an ingest's do.
        if (r.status === 'pending' || r.status === 'running') s.pending!.run(Buffer.byteLength(r.payloadJson));
        return;
      case 'tombstone':
        s.tombstone!.run(r.source, r.sourceId);
        return;
      case 'message': {
        const id = s.message!.run(r.body, r.urgent ? 1 : 0, r.channel, r.createdAt, r.sentAt).lastInsertRowid;
        for (const f of r.failures) s.failure!.run(id, f.channel, f.kind, f.error, f.failedAt, f.redrivenAt);
        return;
      }
      case 'approval':
        s.approval!.run({ ...r, remindAt: r.remindAt ?? null, remindedAt: r.remindedAt ?? null });
        return;
      case 'timer': {
        const t = r.timer;
        s.timer!.run(t.id, t.due, t.every, t.cron, t.tz, t.missed, t.payloadJson, t.key?.source ?? null, t.key?.sourceId ?? null, r.done ? 1 : 0, r.lastSkipped);
        return;
      }
      case 'memory':
        s.memory!.run(r.key, r.valueJson, r.updatedAt);
        return;
      case 'session':
        s.session!.run(r.stateJson, r.updatedAt);
        return;
      case 'action':
        s.action!.run(r.at, r.actor, r.action, r.target, r.result);
        return;
      case 'effect':
        s.effect!.run(r);
        return;
      case 'usage': {
        const [input, output, cacheRead, cacheWrite, cost, unpriced] = usageValues(r);
        s.usage!.run(r.at, input, output, cacheRead, cacheWrite, cost, unpriced ? 1 : 0);
        return;
      }
    }
  }
}

/** What made a record a duplicate of an earlier one, for the error. */
export function describeTwice(record: CheckedRecord): string {
  switch (record.type) {
    case 'event':
    case 'tombstone':
      return `the key (${JSON.stringify(record.source)}, ${JSON.stringify(record.sourceId)})`;
    case 'approval':
      return `approval ${JSON.stringify(record.id)}`;
    case 'timer':
      return `timer ${JSON.stringify(record.timer.id)}`;
    case 'memory':
      return `memory key ${JSON.stringify(record.key)}`;
    case 'effect':
      return `side effect ${JSON.stringify(record.key)}`;
    default:
      return 'it';
  }
}
