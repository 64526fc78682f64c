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
}

export interface DispatchReport {
  failures?: OutboxFailureReport[];
}

export interface OutboxFailureReport {
  /** The messages this channel did not take (ids from the batch). */
  messageIds: number[];
  channel: string;
  /** rejected: the channel refused them for good; undeliverable: the inbox has no address for that channel. */
  kind: 'rejected' | 'undeliverable';
  error: string;
}

/** A message a channel did not take, kept until redriven (Inbox.redriveOutbox). */
export interface OutboxFailure {
  messageId: number;
  body: string;
  channel: string;
  kind: 'rejected' | 'undeliverable';
  error: string;
  failedAt: number;
}

export interface DispatchOptions {
  /** Record first, send second: a crash loses the message instead of repeating it. */
  atMostOnce?: boolean;
}
