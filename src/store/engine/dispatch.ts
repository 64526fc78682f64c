/**
 * R9's protocol around a channel: reserve, send, then record or release.
 * The send happens between two transactions, never inside one: holding an
 * inbox's write lock across a network call would block every ingest to it
 * for as long as a channel hangs. The batch is reserved for leaseTtlMs
 * instead, so no other dispatcher touches it; a crash, or a send slower
 * than the reservation, makes it sendable again: at-least-once. With
 * `atMostOnce` the batch is recorded as sent before the send, so a crash
 * loses it instead. docs/design/outbox-dispatch.md has the reasoning.
 */
import type { InboxSettings, SendFn } from '../contract.js';
import { planDispatch, type PacingPolicy } from '../outbox-batch.js';
import type { InboxPort } from './port.js';

export interface DispatchResult {
  sent: number;
  /** Messages still held in the inbox after this dispatch. */
  held: number;
}

export async function dispatchOutbox(
  port: InboxPort,
  send: SendFn,
  options: { atMostOnce: boolean; gapMs: number; onRecorded: (result: DispatchResult) => void },
): Promise<number> {
  const { atMostOnce, gapMs, onRecorded } = options;
  const reserved = await port.reserve(({ held, pacing, settings, now }) => planDispatch(held, pacing, now, policyOf(settings, gapMs)), { atMostOnce });
  if (reserved === null) return 0;
  const { batch } = reserved;
  const recorded = { sent: batch.messages.length, held: reserved.held - batch.messages.length };
  if (atMostOnce) {
    // Recorded as sent already: whatever the send does now, it is not sent again.
    onRecorded(recorded);
    await send(batch.body, batch.messages);
    return recorded.sent;
  }
  try {
    await send(batch.body, batch.messages);
  } catch (error) {
    await port.unreserve(batch);
    throw error;
  }
  await port.markSent(batch);
  onRecorded(recorded);
  return recorded.sent;
}

/** The inbox's own pacing where its settings have one, the store's gap otherwise. */
export function policyOf(settings: InboxSettings, storeGapMs: number): PacingPolicy {
  const outbox = settings.outbox ?? {};
  return { gapMs: outbox.gapMs ?? storeGapMs, quietHours: outbox.quietHours ?? null, dailyLimit: outbox.dailyLimit ?? null };
}
