/**
 * The ledger of side effects on PostgreSQL (contract/effects.ts), each verb
 * a transaction on the inbox's locked row (inbox-tx.ts): a call started
 * before its tool runs (fenced on the lease, R3, checked on that row),
 * settled by hand when unknown, listed. The rules are the engine's
 * (engine/effects.ts); the finish settles a run's calls in vigil_finish.
 */
import type { EffectStart, LeaseInfo } from '../contract.js';
import { checkSettleable, planStart } from '../engine/effects.js';
import { holds } from '../engine/lease.js';
import type { StoredEffect } from '../engine/port.js';
import type { CheckedIntent } from '../engine/validate/index.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

export const EFFECT_COLUMNS = `key, tool, input AS "inputJson", input_hash AS "inputHash", state, gen,
  intended_at AS "intendedAt", started_at AS "startedAt", settled_at AS "settledAt"`;
const READ_STATE = 'SELECT state, gen FROM effects WHERE inbox_id = $1 AND key = $2';
const INSERT = `
INSERT INTO effects (inbox_id, key, tool, input, input_hash, state, gen, intended_at, started_at)
VALUES ($1, $2, $3, $4, $5, 'started', $6, $7, $7)`;
const START = "UPDATE effects SET state = 'started', gen = $3, started_at = $4, settled_at = NULL WHERE inbox_id = $1 AND key = $2";
const SETTLE = 'UPDATE effects SET state = $3, settled_at = $4 WHERE inbox_id = $1 AND key = $2';
export const LIST_ALL_EFFECTS = `SELECT ${EFFECT_COLUMNS} FROM effects WHERE inbox_id = $1 ORDER BY coalesce(started_at, intended_at) DESC, key LIMIT $2`;
export const LIST_STARTED_EFFECTS = `SELECT ${EFFECT_COLUMNS} FROM effects WHERE inbox_id = $1 AND state = 'started' ORDER BY started_at, key LIMIT $2`;
/** The lease as the ledger's rule reads it, with the store's now (the database's clock unless the app's is given, $2). */
export const READ_LEASE = `SELECT holder, gen, lease_until AS until, coalesce($2::bigint, ${DB_NOW_MS}) AS now FROM inboxes WHERE inbox_id = $1`;

type Row = Pick<StoredEffect, 'state' | 'gen'>;

export function leaseOf(tx: InboxTx): LeaseInfo | null {
  const { holder, gen, until } = tx.inbox;
  return holder === null || until === null ? null : { holder, gen, until };
}

/** R3 on the locked row first: a run that lost its lease starts nothing (null). */
export async function startEffect(tx: InboxTx, holder: string, gen: number, intent: CheckedIntent): Promise<EffectStart | null> {
  if (!holds(leaseOf(tx), holder, gen, tx.now)) return null;
  const [existing] = await tx.rows<Row>(READ_STATE, [tx.inboxId, intent.key]);
  const plan = planStart(existing?.state ?? null);
  if ('answer' in plan) return plan.answer;
  if (plan.write === 'insert') await tx.run(INSERT, [tx.inboxId, intent.key, intent.tool, intent.inputJson, intent.inputHash, gen, tx.now]);
  else await tx.run(START, [tx.inboxId, intent.key, gen, tx.now]);
  return 'started';
}

/** By hand: only an unknown call (not_unknown, thrown inside the transaction, writes nothing). */
export async function settleEffect(tx: InboxTx, key: string, state: 'confirmed' | 'failed'): Promise<void> {
  const [row] = await tx.rows<Row>(READ_STATE, [tx.inboxId, key]);
  checkSettleable(key, row ?? null, leaseOf(tx), tx.now);
  await tx.run(SETTLE, [tx.inboxId, key, state, tx.now]);
}
