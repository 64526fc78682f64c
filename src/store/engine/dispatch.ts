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
import { VigilError } from '../../errors.js';
import type { DispatchReport, InboxSettings, OutboxFailureReport, SendFn } from '../contract.js';
import { planDispatch, type DispatchPlan, type PacingPolicy } from '../outbox-batch.js';
import type { InboxPort } from './port.js';
import { checkStorable, describe, storableText } from './validate/index.js';

export interface DispatchResult {
  sent: number;
  /** Messages still held in the inbox after this dispatch. */
  held: number;
  /** What some channel did not take, as the send reported it (recorded with the batch). */
  failures: OutboxFailureReport[];
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
  const sent = batch.messages.length;
  const context = { contacts: { ...(reserved.settings.contacts ?? {}) } };
  if (atMostOnce) {
    // Recorded as sent already: whatever the send does now, it is not sent again.
    onRecorded({ sent, held: reserved.held - sent, failures: [] });
    const report = await send(batch.body, batch.messages, context);
    const failures = checkReport(report, batch);
    if (failures.length > 0) await port.markSent(batch, failures);
    return sent;
  }
  let report: void | DispatchReport;
  try {
    report = await send(batch.body, batch.messages, context);
  } catch (error) {
    await port.unreserve(batch);
    throw error;
  }
  let failures: OutboxFailureReport[];
  try {
    failures = checkReport(report, batch);
  } catch (error) {
    // The channels took what they took: the batch is sent; only the malformed report is refused.
    await port.markSent(batch, []);
    onRecorded({ sent, held: reserved.held - sent, failures: [] });
    throw error;
  }
  await port.markSent(batch, failures);
  onRecorded({ sent, held: reserved.held - sent, failures });
  return sent;
}

/** The inbox's own pacing where its settings have one, the store's gap otherwise. */
export function policyOf(settings: InboxSettings, storeGapMs: number): PacingPolicy {
  const outbox = settings.outbox ?? {};
  return { gapMs: outbox.gapMs ?? storeGapMs, quietHours: outbox.quietHours ?? null, dailyLimit: outbox.dailyLimit ?? null };
}

const MAX_FAILURE_ERROR = 2_000;

/** A send's report, checked against the batch it reports on. */
function checkReport(report: void | DispatchReport, batch: DispatchPlan): OutboxFailureReport[] {
  if (report === undefined || report === null) return [];
  const fail = (problem: string): never => {
    throw new VigilError('invalid_argument', `dispatch: the send's report ${problem}; the batch is recorded as sent, the report ignored`);
  };
  if (typeof report !== 'object') fail(`must be an object { failures? }, got ${describe(report)}`);
  const failures = (report as DispatchReport).failures ?? [];
  if (!Array.isArray(failures)) fail('failures must be an array');
  const ids = new Set(batch.messages.map((m) => m.id));
  return failures.map((failure, i) => {
    const { messageIds, channel, kind, error } = (failure ?? {}) as Partial<OutboxFailureReport>;
    if (!Array.isArray(messageIds) || messageIds.length === 0 || !messageIds.every((id) => ids.has(id))) {
      fail(`failures[${i}].messageIds must name messages of this batch`);
    }
    if (typeof channel !== 'string' || channel === '' || channel.length > 64) fail(`failures[${i}].channel must be a channel name`);
    if (kind !== 'rejected' && kind !== 'undeliverable') fail(`failures[${i}].kind must be 'rejected' or 'undeliverable'`);
    if (typeof error !== 'string' || error === '') fail(`failures[${i}].error must be a non-empty string`);
    checkStorable('invalid_argument', `failures[${i}].channel`, channel as string);
    const text = (error as string).length > MAX_FAILURE_ERROR ? `${(error as string).slice(0, MAX_FAILURE_ERROR)}…` : (error as string);
    return { messageIds: [...new Set(messageIds as number[])], channel: channel as string, kind: kind as OutboxFailureReport['kind'], error: storableText(text) };
  });
}
