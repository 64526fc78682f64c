/**
 * The ledger of side effects (issue 51): each call of a tool declared
 * `sideEffect: true` is a row of its inbox, keyed by the call's idempotency
 * key, that goes `intended → started → confirmed | failed`.
 *
 * - `intended` and `started` are written before the tool's code runs, in a
 *   write of their own fenced on the run's lease (R3): a run that lost its
 *   lease starts nothing. For a call the policy allows both are written in
 *   that one write (the row is `started`, its intendedAt = startedAt); a
 *   call the policy asks about is `intended` with the asking run's finish
 *   (RunOutcome.intents, beside its approval), under the key its approved
 *   call will run with, and `started` when that call is about to run.
 * - `confirmed` (the tool returned) or `failed` (it threw) are written with
 *   the run's finish, so only a recorded finish settles a call.
 * - A row left `started` by a run that did not finish (a crash, a lost
 *   lease) is **unknown**: nobody knows whether the effect happened. The
 *   next run sees it and settles it (`settleEffect`), or asks a person; the
 *   tool loop never runs it again on its own.
 */

export type EffectState = 'intended' | 'started' | 'confirmed' | 'failed';

/** A call about to run: what `startEffect` records. */
export interface EffectIntent {
  /** The call's idempotency key (ToolCall.idempotencyKey): 1 to 256 characters. */
  key: string;
  tool: string;
  /** The call's input (a JSON object), bounded like an event's payload. */
  input: Record<string, unknown>;
}

/**
 * What `startEffect` answers: `started` (run it), `unknown` (a call with this
 * key was started and never settled: do not run it), `confirmed` (it
 * happened already: do not run it again), or `null` when the run no longer
 * holds its lease (R3): nothing was written and the tool must not run.
 * A `failed` call may be started again under its key: its tool said it did
 * not happen.
 */
export type EffectStart = 'started' | 'unknown' | 'confirmed';

/** A call's settlement, with a run's finish (RunOutcome.effects) or at once (settleEffect). */
export interface EffectSettlement {
  key: string;
  state: 'confirmed' | 'failed';
}

export interface EffectRow {
  key: string;
  tool: string;
  input: Record<string, unknown>;
  /** sha256 (hex) of the input's stable JSON (object keys sorted). */
  inputHash: string;
  state: EffectState;
  /** True for a `started` row whose run is gone (crashed, or lost its lease). */
  unknown: boolean;
  intendedAt: number;
  startedAt: number | null;
  settledAt: number | null;
}

/** An unknown call as a run sees it (ctx.unknownEffects): `at` is when it was started. */
export interface UnknownEffect {
  tool: string;
  input: Record<string, unknown>;
  key: string;
  at: number;
}

export interface EffectQuery {
  /** `unknown` (the default): only unknown calls; `all`: every row, newest first. */
  which?: 'unknown' | 'all';
  /** At most this many rows (default 100, at most 1,000). */
  limit?: number;
}
