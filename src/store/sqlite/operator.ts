/**
 * What a person does to an inbox from the dashboard or the CLI: the "send
 * now" of its outbox, and the record of every such action.
 */
import type { OperatorAction } from '../contract.js';
import { toOperatorAction, type ActionRecord } from '../rows.js';
import type { CheckedAction } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';
import { boundLimit } from './bound-limit.js';

/**
 * R9 as urgent: every held message skips the gap once. One write
 * transaction, so the ready index's send_at becomes the oldest held
 * message's time (wake.ts) when it settles, and the dispatcher sends them at
 * once. A batch in flight stays reserved; it is marked too, and goes at once
 * if its send fails.
 */
export function expediteOutbox(c: InboxDb): number {
  return c.stmt('UPDATE outbox SET urgent = 1 WHERE sent_at IS NULL').run().changes;
}

export function recordAction(c: InboxDb, action: CheckedAction, now: number): void {
  c.stmt('INSERT INTO operator_actions (at, actor, action, target, result) VALUES (?, ?, ?, ?, ?)').run(
    now,
    action.actor,
    action.action,
    action.target,
    action.result,
  );
}

const ACTIONS = `SELECT at, actor, action, target, result FROM operator_actions ORDER BY id DESC ${boundLimit('?')}`;

/** Newest first, in the order they were recorded. */
export function listActions(c: InboxDb, limit: number): OperatorAction[] {
  const rows = c.stmt(ACTIONS).all(limit);
  return (rows as ActionRecord[]).map(toOperatorAction);
}
