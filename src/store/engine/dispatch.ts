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
import { createHash } from 'node:crypto';
import { VigilError } from '../../errors.js';
import type { BatchProgress, DispatchReport, InboxSettings, OutboxFailureReport, SendContext, SendFn } from '../contract.js';
import { OUTBOX_FAILURE_KINDS, type OutboxFailureKind } from '../contract/outbox.js';
import { planDispatch, type DispatchPlan, type PacingPolicy } from '../outbox-batch.js';
import type { InboxPort, Reserved } from './port.js';
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
  options: {
    atMostOnce: boolean;
    gapMs: number;
    onRecorded: (result: DispatchResult) => void;
    /** At most once: the failures recorded after the send (the batch was recorded before it). */
    onFailures: (failures: OutboxFailureReport[]) => void;
    onRefused: () => void;
  },
): Promise<number> {
  const { atMostOnce, gapMs, onRecorded } = options;
  const reserved = await port.reserve(({ held, pacing, settings, now }) => planDispatch(held, pacing, now, policyOf(settings, gapMs)), { atMostOnce });
  if (reserved === null) return 0;
  const { batch } = reserved;
  const sent = batch.messages.length;
  // Every record after the send may find the inbox deleted meanwhile: refused (it recreates
  // nothing), and said once for the whole dispatch however many of its records were refused.
  let gone = false;
  const recorded = (written: boolean): boolean => {
    if (!written && !gone) options.onRefused();
    gone ||= !written;
    return written;
  };
  const context = sendContext(port, reserved, atMostOnce, recorded);
  if (atMostOnce) {
    // Recorded as sent already: whatever the send does now, it is not sent again.
    onRecorded({ sent, held: reserved.held - sent, failures: [] });
    const report = await send(batch.body, batch.messages, context);
    const failures = checkReport(report, batch);
    if (failures.length > 0 && recorded(await port.markSent(batch, failures))) options.onFailures(failures);
    return sent;
  }
  let report: void | DispatchReport;
  try {
    report = await send(batch.body, batch.messages, context);
  } catch (error) {
    recorded(await port.unreserve(batch));
    throw error;
  }
  let failures: OutboxFailureReport[];
  try {
    failures = checkReport(report, batch);
  } catch (error) {
    // The channels took what they took: the batch is sent; only the malformed report is refused.
    if (recorded(await port.markSent(batch, []))) onRecorded({ sent, held: reserved.held - sent, failures: [] });
    throw error;
  }
  if (recorded(await port.markSent(batch, failures))) onRecorded({ sent, held: reserved.held - sent, failures });
  return sent;
}

/**
 * What the send is told of the batch: the contacts, and the progress an
 * earlier try of this same batch recorded, with a way to record more. At
 * most once there is none: the batch is recorded as sent and never tried again.
 */
function sendContext(port: InboxPort, reserved: Reserved, atMostOnce: boolean, recorded: (written: boolean) => boolean): SendContext {
  const contacts = { ...(reserved.settings.contacts ?? {}) };
  if (atMostOnce) return { contacts, done: { channels: [], failures: [] }, progress: async () => undefined };
  let name: string | undefined;
  const batchName = (): string => (name ??= nameBatch(reserved.batch));
  return {
    contacts,
    done: reserved.progress === null || reserved.progress.batch !== batchName() ? { channels: [], failures: [] } : readProgress(reserved.progress.json, reserved.batch),
    progress: async (progress) => {
      const json = JSON.stringify(checkProgress(progress, reserved.batch));
      recorded(await port.recordProgress({ batch: batchName(), json }));
    },
  };
}

/**
 * A batch's name for its progress: a digest of its message ids. A retry that
 * picks other messages (more arrived, some were redriven) is another batch,
 * which every channel gets, as a new batch id (channel.ts, batchId) tells them.
 */
function nameBatch(batch: DispatchPlan): string {
  return createHash('sha256').update(batch.messages.map((m) => m.id).join(',')).digest('base64url');
}

/** Stored progress, as this engine wrote it; anything unreadable counts as none (every channel gets the batch: at least once). */
function readProgress(json: string, batch: DispatchPlan): BatchProgress {
  try {
    return checkProgress(JSON.parse(json) as BatchProgress, batch);
  } catch {
    return { channels: [], failures: [] };
  }
}

function checkProgress(progress: BatchProgress, batch: DispatchPlan): BatchProgress {
  const { channels } = progress ?? {};
  if (!Array.isArray(channels) || !channels.every((c) => typeof c === 'string' && c !== '' && c.length <= 64)) {
    throw new VigilError('invalid_argument', 'dispatch: the progress channels must be a list of channel names; nothing recorded');
  }
  return { channels: [...new Set(channels)], failures: checkReport({ failures: progress.failures ?? [] }, batch, 'the progress', 'nothing recorded') };
}

/** The inbox's own pacing where its settings have one, the store's gap otherwise. */
export function policyOf(settings: InboxSettings, storeGapMs: number): PacingPolicy {
  const outbox = settings.outbox ?? {};
  // Quiet hours and the daily limit keep the person's time zone unless they name their own.
  const timeZone = outbox.quietHours?.timeZone ?? settings.timeZone ?? 'UTC';
  const quietHours = outbox.quietHours === undefined ? null : { ...outbox.quietHours, timeZone };
  return { gapMs: outbox.gapMs ?? storeGapMs, quietHours, dailyLimit: outbox.dailyLimit ?? null, timeZone };
}

const MAX_FAILURE_ERROR = 2_000;

/** A send's report, checked against the batch it reports on. */
function checkReport(
  report: void | DispatchReport,
  batch: DispatchPlan,
  what = "the send's report",
  outcome = 'the batch is recorded as sent, the report ignored',
): OutboxFailureReport[] {
  if (report === undefined || report === null) return [];
  const fail = (problem: string): never => {
    throw new VigilError('invalid_argument', `dispatch: ${what} ${problem}; ${outcome}`);
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
    if (!OUTBOX_FAILURE_KINDS.includes(kind as OutboxFailureKind)) fail(`failures[${i}].kind must be 'rejected', 'undeliverable' or 'uncertain'`);
    if (typeof error !== 'string' || error === '') fail(`failures[${i}].error must be a non-empty string`);
    checkStorable('invalid_argument', `failures[${i}].channel`, channel as string);
    const text = (error as string).length > MAX_FAILURE_ERROR ? `${(error as string).slice(0, MAX_FAILURE_ERROR)}…` : (error as string);
    return { messageIds: [...new Set(messageIds as number[])], channel: channel as string, kind: kind as OutboxFailureReport['kind'], error: storableText(text) };
  });
}
