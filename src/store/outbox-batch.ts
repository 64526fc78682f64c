/**
 * R9's choice of what one dispatch sends, shared by both stores (each does
 * the reading and writing in its own SQL around it). See
 * docs/design/outbox-dispatch.md for why a batch is reserved, sent, then
 * recorded.
 */
import { randomUUID } from 'node:crypto';
import type { HeldMessage, QuietHours } from './contract.js';
import { localDay, nextLocalDay, quietState } from './pacing.js';

/** A held outbox row as both stores read it. */
export interface HeldRow {
  id: number;
  body: string;
  urgent: boolean;
  channel: string | null;
  /** It was reserved by a dispatch whose reservation has since expired. */
  reservedBefore: boolean;
}

/** How an inbox is paced: the store's gap unless its settings say otherwise, and its person's quiet hours and daily limit. */
export interface PacingPolicy {
  gapMs: number;
  quietHours: QuietHours | null;
  dailyLimit: number | null;
  /** The zone of the local days the daily limit counts: the quiet hours', else the inbox's, else UTC. */
  timeZone?: string;
}

/** What the store keeps between dispatches to pace them. */
export interface PacingState {
  /** The last send that counted against the gap. */
  lastPaced: number | null;
  /** The local day `daySends` counts (YYYY-MM-DD in the quiet hours' time zone, else UTC), or null. */
  day: string | null;
  /** Non-urgent sends (batches) on that day. */
  daySends: number;
}

export interface DispatchPlan {
  token: string;
  messages: HeldMessage[];
  /** The held messages joined by a blank line: what is sent. */
  body: string;
  /**
   * Set when this batch counted against the gap and the daily limit: the
   * pacing before it, to restore if the send fails (only if no later batch
   * has counted since: the store checks lastPaced is still `at`).
   */
  pacing: { previous: PacingState; next: PacingState; at: number } | null;
}

export interface DispatchDecision {
  /** What goes now, or null when nothing may. */
  batch: DispatchPlan | null;
  /**
   * Until when non-urgent messages are held for a reason the gap does not
   * cover (quiet hours, the daily limit used up): what the store lists the
   * inbox's next send at, so a dispatcher does not come back before. Null:
   * only the gap holds them.
   */
  notBefore: number | null;
}

/**
 * Everything held when the gap has passed since the last paced send and
 * neither quiet hours nor the daily limit hold non-urgent messages;
 * otherwise only urgent messages, which neither wait nor count (during quiet
 * hours they go alone, the held ones waiting on), and a batch whose
 * reservation expired (it passed the pacing once: it goes again at once).
 */
export function planDispatch(held: HeldRow[], state: PacingState, now: number, policy: PacingPolicy): DispatchDecision {
  const timeZone = policy.quietHours?.timeZone ?? policy.timeZone ?? 'UTC';
  const quiet = policy.quietHours === null ? null : quietState(policy.quietHours, now);
  const today = policy.dailyLimit === null ? null : localDay(now, timeZone);
  const sentToday = today !== null && state.day === today ? state.daySends : 0;
  const limitReached = policy.dailyLimit !== null && sentToday >= policy.dailyLimit;
  const gapPassed = state.lastPaced === null || now - state.lastPaced >= policy.gapMs;
  const pacedMayGo = gapPassed && quiet?.quiet !== true && !limitReached;

  // Nearly always everything held goes: then no filtered copy of what may be 10,000 rows.
  const chosen = pacedMayGo ? held : held.filter((row) => row.urgent || row.reservedBefore);
  const countsAgainstPacing = chosen.some((row) => !row.urgent && !row.reservedBefore);
  const next: PacingState = countsAgainstPacing
    ? { lastPaced: now, day: today ?? state.day, daySends: today === null ? state.daySends : sentToday + 1 }
    : state;

  // Counted after this batch: once the limit is used up, nothing paced goes before the next local day.
  const usedToday = today !== null && next.day === today ? next.daySends : 0;
  let notBefore: number | null = null;
  if (quiet?.quiet === true) notBefore = quiet.endsAt;
  else if (policy.dailyLimit !== null && usedToday >= policy.dailyLimit) notBefore = nextLocalDay(now, timeZone);

  if (chosen.length === 0) return { batch: null, notBefore };
  // One pass over the batch for both the messages and their bodies (a dispatch may hold 10,000).
  const messages: HeldMessage[] = new Array<HeldMessage>(chosen.length);
  const bodies: string[] = new Array<string>(chosen.length);
  for (let i = 0; i < chosen.length; i++) {
    const { id, body, urgent, channel } = chosen[i]!;
    messages[i] = { id, body, urgent, channel };
    bodies[i] = body;
  }
  return {
    batch: {
      token: randomUUID(),
      messages,
      body: bodies.join('\n\n'),
      pacing: countsAgainstPacing ? { previous: state, next, at: now } : null,
    },
    notBefore,
  };
}
