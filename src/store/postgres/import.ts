/**
 * importInbox on PostgreSQL: one transaction under the new inbox's row
 * lock, the records written as they arrive (events and tombstones in
 * batches), the work row set at the end. Nothing is visible before the
 * COMMIT, and a bad record rolls all of it back.
 */
import { VigilError } from '../../errors.js';
import { inboxBusy, inboxExists } from '../engine/lifecycle.js';
import type { CheckedRecord } from '../engine/validate/index.js';
import { USAGE_EXPORT_COLUMNS, usageValues } from '../inbox-records.js';
import { inboxTransaction, type InboxTx, type TxContext } from './inbox-tx.js';

/** Events or tombstones per INSERT. */
const BATCH = 500;

const HOLDS_ANYTHING = `
SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = $1) OR EXISTS (SELECT 1 FROM tombstones WHERE inbox_id = $1)
    OR EXISTS (SELECT 1 FROM outbox WHERE inbox_id = $1) OR EXISTS (SELECT 1 FROM approvals WHERE inbox_id = $1)
    OR EXISTS (SELECT 1 FROM timers WHERE inbox_id = $1) OR EXISTS (SELECT 1 FROM memory WHERE inbox_id = $1)
    OR EXISTS (SELECT 1 FROM sessions WHERE inbox_id = $1) OR EXISTS (SELECT 1 FROM inbox_settings WHERE inbox_id = $1)
    OR EXISTS (SELECT 1 FROM operator_actions WHERE inbox_id = $1) OR EXISTS (SELECT 1 FROM usage WHERE inbox_id = $1) AS holds`;

const INSERT_EVENTS = `
INSERT INTO events (inbox_id, source, source_id, payload, status, attempts, error, last_error, received_at, finished_at, claim_gen, last_claim_at)
SELECT $1, source, source_id, payload, status, attempts, error, last_error, received_at, finished_at, claim_gen, last_claim_at
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[])
  WITH ORDINALITY AS r(source, source_id, payload, status, attempts, error, last_error, received_at, finished_at, claim_gen, last_claim_at, n)
ORDER BY n`;

const INSERT_TOMBSTONES = `
INSERT INTO tombstones (inbox_id, source, source_id) SELECT $1, source, source_id FROM unnest($2::text[], $3::text[]) AS t(source, source_id)`;

export async function importRecords(ctx: TxContext, inboxId: string, records: AsyncIterable<CheckedRecord>): Promise<number> {
  const imported = await inboxTransaction(ctx, inboxId, true, async (tx) => {
    if (tx.inbox.until !== null && tx.inbox.until >= tx.now) throw inboxBusy(inboxId);
    const [row] = await tx.rows<{ holds: boolean }>(HOLDS_ANYTHING, [inboxId]);
    if (row!.holds) throw inboxExists(inboxId);
    const writer = new RecordWriter(tx, inboxId);
    let n = 0;
    for await (const record of records) await writer.add(record, ++n);
    await writer.flush();
    return n;
  });
  if (imported === 'absent') throw new Error('unreachable: a creating transaction found no inbox row');
  return imported.value;
}

type EventRecord = Extract<CheckedRecord, { type: 'event' }>;

class RecordWriter {
  private events: EventRecord[] = [];
  private tombstones: { source: string; sourceId: string }[] = [];
  /** The number of the first record in each pending batch, for an error that names it. */
  private eventsFrom = 0;
  private tombstonesFrom = 0;

  constructor(
    private readonly tx: InboxTx,
    private readonly inboxId: string,
  ) {}

  async add(r: CheckedRecord, n: number): Promise<void> {
    switch (r.type) {
      case 'event':
        if (this.events.length === 0) this.eventsFrom = n;
        this.events.push(r);
        if (this.events.length === BATCH) await this.flushEvents(n);
        return;
      case 'tombstone':
        if (this.tombstones.length === 0) this.tombstonesFrom = n;
        this.tombstones.push(r);
        if (this.tombstones.length === BATCH) await this.flushTombstones(n);
        return;
      default:
        await this.guard(n, n, r.type, () => this.writeOne(r));
    }
  }

  async flush(): Promise<void> {
    await this.flushEvents(Infinity);
    await this.flushTombstones(Infinity);
  }

  private async flushEvents(last: number): Promise<void> {
    if (this.events.length === 0) return;
    const batch = this.events;
    this.events = [];
    const column = <K extends keyof EventRecord>(key: K): EventRecord[K][] => batch.map((e) => e[key]);
    await this.guard(this.eventsFrom, last, 'event', () =>
      this.run(INSERT_EVENTS, [
        this.inboxId,
        column('source'),
        column('sourceId'),
        column('payloadJson'),
        column('status'),
        column('attempts'),
        column('error'),
        column('lastError'),
        column('receivedAt'),
        column('finishedAt'),
        column('claimGen'),
        column('lastClaimAt'),
      ]),
    );
  }

  private async flushTombstones(last: number): Promise<void> {
    if (this.tombstones.length === 0) return;
    const batch = this.tombstones;
    this.tombstones = [];
    await this.guard(this.tombstonesFrom, last, 'tombstone', () =>
      this.run(INSERT_TOMBSTONES, [this.inboxId, batch.map((t) => t.source), batch.map((t) => t.sourceId)]),
    );
  }

  private async writeOne(r: Exclude<CheckedRecord, { type: 'event' | 'tombstone' }>): Promise<void> {
    const id = this.inboxId;
    switch (r.type) {
      case 'settings':
        await this.run('INSERT INTO inbox_settings (inbox_id, json) VALUES ($1, $2) ON CONFLICT (inbox_id) DO UPDATE SET json = excluded.json', [id, r.settings.json]);
        await this.run('UPDATE inboxes SET gap_ms = $2, debounce_ms = $3, max_wait_ms = $4 WHERE inbox_id = $1', [
          id,
          r.settings.gapMs,
          r.settings.debounceMs,
          r.settings.maxWaitMs,
        ]);
        return;
      case 'lease':
        // The generation only: no holder, so the next acquire takes over with gen + 1, past every claim the export held.
        await this.run('UPDATE inboxes SET gen = $2 WHERE inbox_id = $1', [id, r.gen]);
        return;
      case 'pacing':
        await this.run('UPDATE inboxes SET last_paced_at = $2, not_before = $3, pacing_day = $4, day_sends = $5 WHERE inbox_id = $1', [
          id,
          r.lastPacedAt,
          r.notBefore,
          r.day,
          r.daySends,
        ]);
        return;
      case 'message': {
        const rows = await this.tx.rows<{ id: number }>(
          'INSERT INTO outbox (inbox_id, body, urgent, channel, created_at, sent_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
          [id, r.body, r.urgent, r.channel, r.createdAt, r.sentAt],
        );
        for (const f of r.failures) {
          await this.run(
            'INSERT INTO outbox_failures (inbox_id, message_id, channel, kind, error, failed_at, redriven_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [id, rows[0]!.id, f.channel, f.kind, f.error, f.failedAt, f.redrivenAt],
          );
        }
        return;
      }
      case 'approval':
        await this.run(
          `INSERT INTO approvals (inbox_id, id, action, requested_at, expires_at, answer, answered_at, remind_at, reminded_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [id, r.id, r.actionJson, r.requestedAt, r.expiresAt, r.answer, r.answeredAt, r.remindAt ?? null, r.remindedAt ?? null],
        );
        return;
      case 'timer': {
        const t = r.timer;
        await this.run(
          `INSERT INTO timers (inbox_id, id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [id, t.id, t.due, t.every, t.cron, t.tz, t.missed, t.payloadJson, t.key?.source ?? null, t.key?.sourceId ?? null, r.done, r.lastSkipped],
        );
        return;
      }
      case 'memory':
        await this.run('INSERT INTO memory (inbox_id, key, value, updated_at) VALUES ($1, $2, $3, $4)', [id, r.key, r.valueJson, r.updatedAt]);
        return;
      case 'session':
        await this.run(
          `INSERT INTO sessions (inbox_id, state, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (inbox_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
          [id, r.stateJson, r.updatedAt],
        );
        return;
      case 'action':
        await this.run('INSERT INTO operator_actions (inbox_id, at, actor, action, target, result) VALUES ($1, $2, $3, $4, $5, $6)', [
          id,
          r.at,
          r.actor,
          r.action,
          r.target,
          r.result,
        ]);
        return;
      case 'effect':
        await this.run(
          `INSERT INTO effects (inbox_id, key, tool, input, input_hash, state, gen, intended_at, started_at, settled_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [id, r.key, r.tool, r.inputJson, r.inputHash, r.state, r.gen, r.intendedAt, r.startedAt, r.settledAt],
        );
        return;
      case 'usage':
        await this.run(`INSERT INTO usage (inbox_id, ${USAGE_EXPORT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [id, r.at, ...usageValues(r)]);
        return;
    }
  }

  private async run(sql: string, params: unknown[]): Promise<void> {
    await this.tx.run(sql, params);
  }

  /** A unique key taken twice is the records' fault: said as such, naming them. */
  private async guard(first: number, last: number, type: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if ((error as { code?: unknown }).code !== '23505') throw error;
      const which = first === last ? `record ${first}` : Number.isFinite(last) ? `records ${first}–${last}` : `records ${first}–`;
      throw new VigilError('invalid_argument', `${which} (${type}): a key, id or name appears twice in the records`);
    }
  }
}
