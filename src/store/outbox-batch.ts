/**
 * R9's choice of what one dispatch sends, shared by both stores (each does
 * the reading and writing in its own SQL around it). See
 * docs/design/outbox-dispatch.md for why a batch is reserved, sent, then
 * recorded.
 */
import { randomUUID } from 'node:crypto';
import type { HeldMessage } from './contract.js';

/** A held outbox row as both stores read it. */
export interface HeldRow {
  id: number;
  body: string;
  urgent: boolean;
  /** It was reserved by a dispatch whose reservation has since expired. */
  reservedBefore: boolean;
}

export interface DispatchPlan {
  token: string;
  messages: HeldMessage[];
  /** The held messages joined by a blank line: what is sent. */
  body: string;
  /** Set when this batch counted against the gap: what to restore if the send fails. */
  pacing: { previous: number | null; at: number } | null;
}

/**
 * Everything held when the gap has passed since the last paced send;
 * otherwise only urgent messages, which neither wait for the gap nor count
 * against it, and a batch whose reservation expired (it passed the gap once:
 * it goes again at once). Null when nothing may go.
 */
export function planDispatch(held: HeldRow[], lastPaced: number | null, now: number, gapMs: number): DispatchPlan | null {
  const gapPassed = lastPaced === null || now - lastPaced >= gapMs;
  const batch = held.filter((row) => gapPassed || row.urgent || row.reservedBefore);
  if (batch.length === 0) return null;
  const countsAgainstGap = batch.some((row) => !row.urgent && !row.reservedBefore);
  const messages = batch.map(({ id, body, urgent }) => ({ id, body, urgent }));
  return {
    token: randomUUID(),
    messages,
    body: messages.map((m) => m.body).join('\n\n'),
    pacing: countsAgainstGap ? { previous: lastPaced, at: now } : null,
  };
}
