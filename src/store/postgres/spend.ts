/** The budget's judgement on PostgreSQL (engine/budget.ts): the sums since the person's day and month began, and the pause on the inbox row. */
import { TOKENS_SQL, type PauseRow, type SpendJudge, type SpendJudgement, type SpendSums } from '../engine/budget.js';
import type { InboxSettings } from '../contract.js';
import type { InboxTx } from './inbox-tx.js';

/** The settings and the stored pause, one statement. */
export const READ_SPEND_STATE = `
SELECT s.json, i.paused_until AS "pausedUntil", i.pause_reason AS reason, i.pause_noticed_until AS "noticedUntil"
FROM inboxes i LEFT JOIN inbox_settings s ON s.inbox_id = i.inbox_id WHERE i.inbox_id = $1`;

// One walk of usage_at over the month; the day is the month's tail.
export const SUMS = `
SELECT coalesce(sum(CASE WHEN at >= $2 THEN ${TOKENS_SQL} END), 0)::float8 AS "tokensToday",
       coalesce(sum(cost_usd) FILTER (WHERE at >= $2), 0)::float8 AS "costTodayUsd",
       coalesce(sum(cost_usd), 0)::float8 AS "costMonthUsd"
FROM usage WHERE inbox_id = $1 AND at >= $3`;

const WRITE_PAUSE = 'UPDATE inboxes SET paused_until = $2, pause_reason = $3, pause_noticed_until = $4 WHERE inbox_id = $1';

const QUEUE_NOTICE = 'INSERT INTO outbox (inbox_id, body, urgent, created_at) VALUES ($1, $2, true, $3)';

export type SpendStateRow = PauseRow & { json: string | null };

type Query = <T extends object>(sql: string, params: unknown[]) => Promise<T[]>;

/** The judgement from the row READ_SPEND_STATE gave; sums read through `query`. */
export async function judgeOn(query: Query, inboxId: string, row: SpendStateRow, judge: SpendJudge, now: number): Promise<SpendJudgement> {
  const settings = row.json === null ? {} : (JSON.parse(row.json) as InboxSettings);
  const before: PauseRow = { pausedUntil: row.pausedUntil, reason: row.reason, noticedUntil: row.noticedUntil };
  const periods = judge.periods(settings, now);
  const sums = periods === null ? null : ((await query<SpendSums>(SUMS, [inboxId, periods.dayStart, periods.monthStart]))[0] ?? null);
  return { before, verdict: judge.decide(settings, sums, now, before) };
}

/** Judges and writes the pause and its notice, in the caller's transaction on the locked row. */
export async function judgeSpend(tx: InboxTx, judge: SpendJudge): Promise<SpendJudgement> {
  const [row] = await tx.rows<SpendStateRow>(READ_SPEND_STATE, [tx.inboxId]);
  const judged = await judgeOn((sql, params) => tx.rows(sql, params), tx.inboxId, row!, judge, tx.now);
  const { before, verdict } = judged;
  if (verdict.pausedUntil !== before.pausedUntil || verdict.reason !== before.reason || verdict.noticedUntil !== before.noticedUntil) {
    await tx.run(WRITE_PAUSE, [tx.inboxId, verdict.pausedUntil, verdict.reason, verdict.noticedUntil]);
  }
  if (verdict.notice !== null) await tx.run(QUEUE_NOTICE, [tx.inboxId, verdict.notice, tx.now]);
  return judged;
}
