/**
 * Where outbox messages go. A channel delivers one combined body; throwing
 * means "not delivered" and the dispatcher retries with backoff (the store
 * keeps the messages held). Delivery is at-least-once, so every channel
 * carries a stable id per batch that a receiver can dedupe on.
 */
import type { HeldMessage } from '../store/contract.js';

export interface OutgoingMessage {
  inboxId: string;
  /** The held messages joined by a blank line (R9). */
  body: string;
  messages: HeldMessage[];
  /** Stable across retries of the same batch: `<inbox>:<first id>-<last id>`. */
  id: string;
}

export interface Channel {
  readonly name: string;
  send(message: OutgoingMessage, signal: AbortSignal): Promise<void>;
  close?(): Promise<void>;
}

export function batchId(inboxId: string, messages: HeldMessage[]): string {
  const ids = messages.map((m) => m.id);
  return `${inboxId}:${Math.min(...ids)}-${Math.max(...ids)}`;
}
