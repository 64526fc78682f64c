/** The budget's judgement on an inbox file (engine/budget.ts): the sums since the person's day and month began, and the pause. */
import { TOKENS_SQL, type PauseRow, type SpendJudge, type SpendJudgement, type SpendSums } from '../engine/budget.js';
import type { InboxDb } from './inbox-db.js';
import { readSettings } from './settings.js';

const READ_PAUSE = 'SELECT paused_until AS pausedUntil, reason, noticed_until AS noticedUntil FROM spend_pause WHERE one = 1';

// One walk of usage_at over the month; the day is the month's tail.
const SUMS = `
SELECT coalesce(sum(CASE WHEN at >= @day THEN ${TOKENS_SQL} END), 0) AS tokensToday,
       coalesce(sum(CASE WHEN at >= @day THEN cost_usd END), 0) AS costTodayUsd,
       coalesce(sum(cost_usd), 0) AS costMonthUsd
FROM usage WHERE at >= @month`;

const WRITE_PAUSE = `
INSERT INTO spend_pause (one, paused_until, reason, noticed_until) VALUES (1, @pausedUntil, @reason, @noticedUntil)
ON CONFLICT (one) DO UPDATE SET paused_until = excluded.paused_until, reason = excluded.reason, noticed_until = excluded.noticed_until`;

const QUEUE_NOTICE = 'INSERT INTO outbox (body, urgent, created_at) VALUES (?, 1, ?)';

const NOT_PAUSED: PauseRow = { pausedUntil: null, reason: null, noticedUntil: null };

/** Judges the inbox's spend; with `write`, stores the pause and queues its notice (inside the caller's transaction). */
export function judgeSpend(c: InboxDb, judge: SpendJudge, now: number, write: boolean): SpendJudgement {
  const settings = readSettings(c);
  const before = (c.stmt(READ_PAUSE).get() as PauseRow | undefined) ?? NOT_PAUSED;
  const periods = judge.periods(settings, now);
  const sums = periods === null ? null : (c.stmt(SUMS).get({ day: periods.dayStart, month: periods.monthStart }) as SpendSums);
  const verdict = judge.decide(settings, sums, now, before);
  if (!write) return { before, verdict };
  const { pausedUntil, reason, noticedUntil } = verdict;
  if (pausedUntil !== before.pausedUntil || reason !== before.reason || noticedUntil !== before.noticedUntil) {
    c.stmt(WRITE_PAUSE).run({ pausedUntil, reason, noticedUntil });
  }
  if (verdict.notice !== null) c.stmt(QUEUE_NOTICE).run(verdict.notice, now);
  return { before, verdict };
}

/** R4 and the wake rule's one question: is the inbox paused for spend at `now`? */
export function pausedForSpend(c: InboxDb, now: number): boolean {
  const until = c.stmt('SELECT paused_until FROM spend_pause WHERE one = 1').pluck().get() as number | null | undefined;
  return until !== undefined && until !== null && until > now;
}
