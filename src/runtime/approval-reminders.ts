/**
 * Approvals that remind. The store decides when: its scheduler stores one
 * ('approval-reminder', id) event when an open approval reaches its share
 * of its life (engine/scheduler.ts). The runtime, which holds the link key,
 * says it: it finishes those events itself, without the agent, with one
 * urgent outbox message carrying the approval's signed link, in the same
 * fenced finish that marks them done. So the reminder is queued once: a
 * crash before the finish leaves the event to run again, one after it
 * leaves it done, and a worker that lost the lease queues nothing (R3).
 *
 * Rejected: letting the agent handle the event. Every agent would have to
 * know the event, sign a link it does not hold the key for, and a model
 * could word it as a new question or skip it.
 */
import { describeAction, type ApprovalLink } from '../agent/approval-summary.js';
import { APPROVAL_REMINDER_SOURCE, type ApprovalReminderPayload } from '../store/index.js';
import type { ClaimedEvent, Inbox, OutboxMessage } from '../store/contract.js';
import type { Clock } from '../clock.js';
import type { RuntimeEvents } from '../events.js';

export interface ReminderDeps {
  holder: string;
  clock: Clock;
  events: RuntimeEvents;
  approvalLink?: ((link: ApprovalLink) => string) | undefined;
}

/**
 * Finishes the batch's reminder events and returns the rest, for the agent
 * (the batch itself when it holds none), or null when the finish was
 * refused: the lease is gone.
 */
export async function finishReminders(deps: ReminderDeps, inbox: Inbox, gen: number, batch: ClaimedEvent[]): Promise<ClaimedEvent[] | null> {
  const reminders = batch.filter((event) => event.source === APPROVAL_REMINDER_SOURCE);
  if (reminders.length === 0) return batch;
  const messages: OutboxMessage[] = [];
  const sent: boolean[] = [];
  for (const event of reminders) {
    const message = await reminderMessage(deps, inbox, event);
    if (message !== null) messages.push(message);
    sent.push(message !== null);
  }
  const finished = await inbox.finish(deps.holder, gen, reminders.map((event) => event.id), messages.length === 0 ? {} : { messages });
  if (!finished) return null;
  reminders.forEach((event, i) => deps.events.emit('approval:reminded', { inboxId: inbox.id, approvalId: event.sourceId, sent: sent[i]! }));
  return batch.filter((event) => event.source !== APPROVAL_REMINDER_SOURCE);
}

/**
 * The reminder to queue, or null when there is nothing left to remind of:
 * the approval was answered (its ('approval', id) event exists) or its
 * deadline passed since the scheduler stored the reminder.
 */
async function reminderMessage(deps: ReminderDeps, inbox: Inbox, event: ClaimedEvent): Promise<OutboxMessage | null> {
  const payload = event.payload as Partial<ApprovalReminderPayload> | null;
  // The key's sourceId is the approval id (engine/scheduler.ts): R1 keeps one reminder per approval.
  const approvalId = event.sourceId;
  const expiresAt = typeof payload?.expiresAt === 'number' ? payload.expiresAt : null;
  if (expiresAt === null || deps.clock() >= expiresAt) return null;
  if ((await inbox.getEvent('approval', approvalId)) !== null) return null;
  // What the question's link was signed with (runtime/agent-context.ts): the same summary of the same action.
  const summary = describeAction(payload?.action);
  const until = new Date(expiresAt).toISOString();
  const link = deps.approvalLink?.({ inboxId: inbox.id, approvalId, expiresAt, summary });
  const body = link === undefined
    ? `Reminder: still waiting for your answer, until ${until}: ${summary} (approval ${approvalId})`
    : `Reminder: still waiting for your answer, until ${until}: ${summary}\n${link}`;
  // Urgent, as the question was: a reminder that waits out the pacing may arrive after the deadline.
  return { body, urgent: true };
}
