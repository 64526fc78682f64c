/**
 * What a person does to an inbox from the dashboard or the CLI: the "send
 * now" of its outbox, and the record of every such action.
 */
import type { CheckedAction } from '../engine/validate/index.js';
import type { InboxTx } from './inbox-tx.js';

/**
 * R9 as urgent: every held message skips the gap once. Under the inbox's
 * row lock, and the transaction's work refresh makes send_at the oldest
 * held message's time, so the dispatcher sends them at once.
 */
export async function expediteOutbox(tx: InboxTx): Promise<number> {
  return tx.run('UPDATE outbox SET urgent = true WHERE inbox_id = $1 AND sent_at IS NULL', [tx.inboxId]);
}

export async function recordAction(tx: InboxTx, action: CheckedAction): Promise<void> {
  await tx.run('INSERT INTO operator_actions (inbox_id, at, actor, action, target, result) VALUES ($1, $2, $3, $4, $5, $6)', [
    tx.inboxId,
    tx.now,
    action.actor,
    action.action,
    action.target,
    action.result,
  ]);
}

/** Newest first, in the order they were recorded. */
export const LIST_ACTIONS = 'SELECT at, actor, action, target, result FROM operator_actions WHERE inbox_id = $1 ORDER BY id DESC LIMIT $2';
