/**
 * The ledger of side effects on one SQLite file (contract/effects.ts): a
 * call started before its tool runs (fenced on the lease, R3), settled by
 * hand when unknown, listed. The rules are the engine's (engine/effects.ts).
 */
import type { EffectStart } from '../contract.js';
import { checkSettleable, planStart } from '../engine/effects.js';
import type { StoredEffect, StoredEffects } from '../engine/port.js';
import type { CheckedIntent } from '../engine/validate/index.js';
import { boundLimit } from './bound-limit.js';
import type { InboxDb } from './inbox-db.js';
import { holdsLease, readLease } from './lease.js';

export const EFFECT_COLUMNS = `key, tool, input AS inputJson, input_hash AS inputHash, state, gen,
  intended_at AS intendedAt, started_at AS startedAt, settled_at AS settledAt`;
const READ_STATE = 'SELECT state, gen FROM effects WHERE key = ?';
const INSERT = `
INSERT INTO effects (key, tool, input, input_hash, state, gen, intended_at, started_at)
VALUES (?, ?, ?, ?, 'started', ?, ?, ?)`;
const START = "UPDATE effects SET state = 'started', gen = ?, started_at = ?, settled_at = NULL WHERE key = ?";
const SETTLE_RUN = "UPDATE effects SET state = ?, settled_at = ? WHERE key = ? AND state = 'started' AND gen = ?";
const SETTLE = 'UPDATE effects SET state = ?, settled_at = ? WHERE key = ?';
const LIST_ALL = `SELECT ${EFFECT_COLUMNS} FROM effects ORDER BY coalesce(started_at, intended_at) DESC, key ${boundLimit('?')}`;
const LIST_STARTED = `SELECT ${EFFECT_COLUMNS} FROM effects WHERE state = 'started' ORDER BY started_at, key ${boundLimit('?')}`;

type Row = { state: StoredEffect['state']; gen: number | null };

/** R3 first: a run that lost its lease starts nothing (null). */
export function startEffect(c: InboxDb, holder: string, gen: number, intent: CheckedIntent, now: number): EffectStart | null {
  if (!holdsLease(c, holder, gen, now)) return null;
  const existing = (c.stmt(READ_STATE).get(intent.key) as Row | undefined) ?? null;
  const plan = planStart(existing?.state ?? null);
  if ('answer' in plan) return plan.answer;
  if (plan.write === 'insert') c.stmt(INSERT).run(intent.key, intent.tool, intent.inputJson, intent.inputHash, gen, now, now);
  else c.stmt(START).run(gen, now, intent.key);
  return 'started';
}

/** With a run's finish: the calls its generation started, settled as its tools ended. */
export function settleRunEffects(c: InboxDb, gen: number, effects: readonly { key: string; state: string }[], now: number): void {
  for (const { key, state } of effects) c.stmt(SETTLE_RUN).run(state, now, key, gen);
}

const INTEND = `
INSERT INTO effects (key, tool, input, input_hash, state, intended_at)
VALUES (?, ?, ?, ?, 'intended', ?) ON CONFLICT (key) DO NOTHING`;

/** With a successful finish: the calls asked about, `intended` under their approved key (one already in the ledger stays as it is). */
export function intendEffects(c: InboxDb, intents: readonly CheckedIntent[], now: number): void {
  for (const intent of intents) c.stmt(INTEND).run(intent.key, intent.tool, intent.inputJson, intent.inputHash, now);
}

/** By hand: only an unknown call (engine/effects.ts throws not_unknown inside the transaction, which then writes nothing). */
export function settleEffect(c: InboxDb, key: string, state: 'confirmed' | 'failed', now: number): void {
  const row = (c.stmt(READ_STATE).get(key) as Row | undefined) ?? null;
  checkSettleable(key, row, readLease(c), now);
  c.stmt(SETTLE).run(state, now, key);
}

export function listEffects(c: InboxDb, which: 'unknown' | 'all', limit: number, now: number): StoredEffects {
  const rows = c.stmt(which === 'all' ? LIST_ALL : LIST_STARTED).all(limit) as StoredEffect[];
  return { rows, lease: readLease(c), now };
}
