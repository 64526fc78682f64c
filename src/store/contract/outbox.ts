/**
 * The store contract, part: the outbox's side of a dispatch. What a send
 * function is given (the held messages, their combined body, the person's
 * addresses) and what it may report back (channels that will never take
 * some of them). The rules it keeps (R9) are in ../contract.ts, Inbox.dispatch.
 */

export interface HeldMessage {
  id: number;
  body: string;
  urgent: boolean;
  /** Null: for every channel. A redriven message (redriveOutbox) names the one channel it is for. */
  channel: string | null;
}

/**
 * Delivers one combined body; throwing means "not delivered" (held again,
 * tried again later). It may report channels that will never take some of
 * the messages (rejected for good, or no address for this inbox's person):
 * they are recorded with the send, visible and redrivable, never retried.
 */
export type SendFn = (body: string, messages: HeldMessage[], context: SendContext) => void | DispatchReport | Promise<void | DispatchReport>;

/** What a send knows of the inbox: its person's addresses, from its settings (read with the batch). */
export interface SendContext {
  contacts: Record<string, string>;
  /**
   * What an earlier try of this very batch recorded (`progress`): the
   * channels done with it (they took it, or will never take it) and the
   * failures they reported. A send goes to the other channels only, and
   * reports those failures with its own. Empty on a first try, and at most once.
   */
  done: BatchProgress;
  /**
   * Records, in the store, that some channels are done with this batch,
   * before the send as a whole is: a crash or a failed channel then never
   * sends it again to those. Each call replaces the last (pass everything
   * done so far). At most once it records nothing: the batch is not sent again.
   */
  progress(progress: BatchProgress): Promise<void>;
}

/** Which channels are done with a batch, and what they did not take. */
export interface BatchProgress {
  channels: string[];
  failures: OutboxFailureReport[];
}

export interface DispatchReport {
  failures?: OutboxFailureReport[];
}

export interface OutboxFailureReport {
  /** The messages this channel did not take (ids from the batch). */
  messageIds: number[];
  channel: string;
  kind: OutboxFailureKind;
  error: string;
}

/**
 * Why a channel did not take messages: `rejected`, it refused them for good;
 * `undeliverable`, the inbox has no address for it; `uncertain`, it cannot
 * know whether they landed (a timeout after the request went out), and
 * delivery is at most once, so they are never sent again on their own: an
 * operator resends them (redriveOutbox) or drops them (dropOutbox).
 */
export type OutboxFailureKind = 'rejected' | 'undeliverable' | 'uncertain';
export const OUTBOX_FAILURE_KINDS: readonly OutboxFailureKind[] = ['rejected', 'undeliverable', 'uncertain'];

/** A message a channel did not take, kept until redriven or dropped (Inbox.redriveOutbox, Inbox.dropOutbox). */
export interface OutboxFailure {
  messageId: number;
  body: string;
  channel: string;
  kind: OutboxFailureKind;
  error: string;
  failedAt: number;
}

export interface DispatchOptions {
  /** Record first, send second: a crash loses the message instead of repeating it. */
  atMostOnce?: boolean;
}
