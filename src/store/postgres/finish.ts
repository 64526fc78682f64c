/**
 * R3 (fencing) and R5 (errors): a run's outcome and its messages in one
 * transaction, the function vigil_finish (functions/finish.sql).
 * Refused (false, nothing changed) unless this holder still holds the lease
 * in the generation that claimed every one of `ids`, and they are all still
 * running: a finish retried after a lost response cannot queue its messages
 * twice, and a reply is never queued for an event that will run again.
 */
import type { CheckedFinish } from '../engine/port.js';
import { MEMORY_LIMITS } from '../engine/validate/index.js';
import { workParams, type CallTarget, type Statement } from './call.js';

const FINISH: Statement = {
  name: 'vigil_finish',
  text: 'SELECT vigil_finish($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30) AS finished',
};

export async function finishRun(db: CallTarget, inboxId: string, finish: CheckedFinish): Promise<boolean> {
  // Not db.call: a finish cut off while its call runs must never commit
  // (test/postgres/connection-loss), and a one-statement transaction would
  // commit as soon as the call ended, whether or not the client was still
  // there. That costs one more round trip (the COMMIT) than a bare call.
  const [row] = await db.callThenCommit<{ finished: boolean }>(
    FINISH,
    [...finishParams(db, inboxId, finish), ...workParams(db.options), ...effectParams(finish)],
    { wake: finish.wake },
  );
  return row?.finished === true;
}

/** vigil_finish's parameters up to p_wake, in its order (run-step.ts adds its own after them). */
export function finishParams(db: CallTarget, inboxId: string, { holder, gen, ids, outcome, wake }: CheckedFinish): unknown[] {
  return [
    inboxId,
    holder,
    gen,
    ids,
    outcome.error,
    outcome.dead,
    outcome.messages.map((m) => m.body),
    outcome.messages.map((m) => m.urgent),
    outcome.session !== undefined,
    outcome.session ?? null,
    // One list of keys: a value to set, or null to delete.
    [...outcome.memory.delete, ...outcome.memory.set.map((entry) => entry.key)],
    [...outcome.memory.delete.map(() => null), ...outcome.memory.set.map((entry) => entry.json)],
    MEMORY_LIMITS.totalBytes,
    outcome.approvals.map((a) => a.id),
    outcome.approvals.map((a) => a.actionJson),
    outcome.approvals.map((a) => a.expiresInMs),
    outcome.approvals.map((a) => a.remindInMs),
    outcome.usage === null ? null : JSON.stringify(outcome.usage),
    db.appNow(),
    wake,
  ];
}

/** The ledger (contract/effects.ts) as vigil_finish's last parameters: the settlements' keys and states, then the intents' keys, tools, inputs and hashes. */
export function effectParams({ outcome }: CheckedFinish): string[][] {
  const { effects, intents } = outcome;
  return [effects.map((e) => e.key), effects.map((e) => e.state), ...(['key', 'tool', 'inputJson', 'inputHash'] as const).map((field) => intents.map((i) => i[field]))];
}
