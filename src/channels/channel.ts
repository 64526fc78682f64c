/**
 * Where outbox messages go. A channel delivers one combined body and says
 * how it went (a DeliveryResult): delivered; retry later (the store keeps the
 * messages held and the dispatcher backs off, honouring retryAfterMs); or
 * rejected for good (a revoked token, an unknown recipient, a 4xx), which
 * is recorded, visible and redrivable instead of retried forever; or
 * uncertain: the channel cannot know whether it landed (the request went
 * out, then the answer never came). Throwing counts as "retry". Delivery is
 * at-least-once unless the dispatcher is told otherwise, so every channel
 * carries a stable id per batch that a receiver can dedupe on; an uncertain
 * send is then simply sent again under the same id, and at most once it is
 * kept for an operator to resend or drop, never sent again on its own.
 */
import type { HeldMessage } from '../store/contract.js';

export interface OutgoingMessage {
  /** The inbox whose person this is for; null for a message to the operator (an operator channel's only kind). */
  inboxId: string | null;
  /** The held messages for this channel joined by a blank line (R9). */
  body: string;
  messages: HeldMessage[];
  /** Stable across retries of the same batch: `<inbox>:<first id>-<last id>`. */
  id: string;
  /** This inbox's person on this channel (settings `contacts.<channel name>`), or null. */
  contact: string | null;
}

/** Who a channel's messages are for: each inbox's person (the outbox), or the service's operator. */
export type Audience = 'users' | 'operator';

/** What a channel's options default to, where the config does not say. */
export const CHANNEL_DEFAULTS = {
  /** How long one delivery may take. */
  timeoutMs: 10_000,
} as const;

export type DeliveryResult =
  | { status: 'delivered' }
  | { status: 'retry'; reason: string; retryAfterMs?: number }
  | { status: 'rejected'; reason: string }
  | { status: 'uncertain'; reason: string };

export interface Channel {
  /** Its name in the config: the key of an inbox's contacts for it (`contacts.<name>`). */
  readonly name: string;
  /**
   * `required`: the channel reaches a person only through their contact; a
   * message for an inbox with none is undeliverable here (recorded, never
   * sent to anyone else). `optional` (default): sent either way.
   */
  readonly contact?: 'required' | 'optional';
  send(message: OutgoingMessage, signal: AbortSignal): Promise<DeliveryResult | void>;
  close?(): Promise<void>;
}

export const delivered = (): DeliveryResult => ({ status: 'delivered' });
export const retryLater = (reason: string, retryAfterMs?: number): DeliveryResult =>
  retryAfterMs === undefined ? { status: 'retry', reason } : { status: 'retry', reason, retryAfterMs };
export const rejected = (reason: string): DeliveryResult => ({ status: 'rejected', reason });
export const uncertain = (reason: string): DeliveryResult => ({ status: 'uncertain', reason });

export function batchId(inboxId: string, messages: HeldMessage[]): string {
  const ids = messages.map((m) => m.id);
  return `${inboxId}:${Math.min(...ids)}-${Math.max(...ids)}`;
}
