/**
 * What the SQLite store's main thread and its writer thread
 * (writer-thread.ts, writer-worker.ts) say to each other. Plain data only:
 * messages are copied between threads, except a fake clock's time cell,
 * which is shared memory.
 */
import { isVigilError, VigilError, type VigilErrorCode } from '../../errors.js';
import type { InboxLimits } from '../contract.js';
import type { IngestResult } from '../engine/quota.js';
import type { CheckedEvent } from '../engine/validate/index.js';
import type { ResolvedOptions } from '../options.js';

/** The clock the thread reads: the process clock, or a createFakeClock() clock's shared cell. */
export type ThreadClock = { kind: 'system' } | { kind: 'shared'; cell: BigInt64Array };

/** A store the thread commits for: its directory and options, the clock as the thread can read it. */
export interface WriterStoreSpec {
  dir: string;
  // Without retention: the thread only commits ingests, and pruning is the main thread's.
  options: Omit<ResolvedOptions, 'clock' | 'writerThread' | 'retention'>;
  clock: ThreadClock;
}

/** `open` is answered by nothing: a store that failed to open fails each commit sent to it. */
export type ToWriter =
  | { type: 'open'; store: number; spec: WriterStoreSpec }
  | { type: 'commit'; call: number; store: number; inboxId: string; events: PackedEvents; burst: boolean; quotas: PackedQuotas }
  | { type: 'close'; call: number; store: number };

export type FromWriter =
  | { type: 'committed'; call: number; results: IngestResult[] }
  | { type: 'closed'; call: number }
  | { type: 'failed'; call: number; error: WireError };

/** A group's events as one string (packEvents). */
export type PackedEvents = string & { readonly packed: unique symbol };

/**
 * A group's events as one string for the trip to the thread: a structured
 * clone copies one string as a block, but walks many small objects field by
 * field. NUL separates the fields: no key may hold it (validate/text.ts),
 * and JSON text never does (JSON.stringify writes it as \u0000).
 */
export function packEvents(events: readonly CheckedEvent[]): PackedEvents {
  let packed = '';
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    packed += `${i === 0 ? '' : '\u0000'}${e.source}\u0000${e.sourceId}\u0000${e.payloadJson}`;
  }
  return packed as PackedEvents;
}

/** Each event's quota as three numbers (-1 for none), or null when no event has one: a flat array of numbers crosses threads as one block. */
export type PackedQuotas = number[] | null;

export function packQuotas(quotas: readonly (InboxLimits | null)[]): PackedQuotas {
  if (!quotas.some((quota) => quota !== null)) return null;
  return quotas.flatMap((q) => (q === null ? [-1, -1, -1] : [q.pendingEventsPerInbox, q.pendingBytesPerInbox, q.eventsPerMinutePerInbox]));
}

export function unpackQuotas(packed: PackedQuotas, count: number): (InboxLimits | null)[] {
  if (packed === null) return [];
  return Array.from({ length: count }, (_, i) =>
    packed[i * 3]! < 0 ? null : { pendingEventsPerInbox: packed[i * 3]!, pendingBytesPerInbox: packed[i * 3 + 1]!, eventsPerMinutePerInbox: packed[i * 3 + 2]! },
  );
}

export function unpackEvents(packed: PackedEvents): CheckedEvent[] {
  const fields = packed.split('\u0000');
  const events: CheckedEvent[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) events.push({ source: fields[i]!, sourceId: fields[i + 1]!, payloadJson: fields[i + 2]! });
  return events;
}

/** An error as it crosses threads: a structured clone keeps an Error's message but not its class or `code`. */
export interface WireError {
  vigil: boolean;
  name: string;
  code: string | undefined;
  message: string;
  field: string | undefined;
  stack: string | undefined;
}

export function toWire(error: unknown): WireError {
  if (isVigilError(error)) return { vigil: true, name: error.name, code: error.code, message: error.message, field: error.field, stack: error.stack };
  const err = error instanceof Error ? error : new Error(String(error));
  const code = (err as { code?: unknown }).code;
  return { vigil: false, name: err.name, code: typeof code === 'string' ? code : undefined, message: err.message, field: undefined, stack: err.stack };
}

/** The error again, on this side: a VigilError with its code, or an Error with the driver's `code`. */
export function fromWire(wire: WireError): Error {
  let error: Error;
  if (wire.vigil) {
    error = new VigilError(wire.code as VigilErrorCode, wire.message, wire.field === undefined ? undefined : { field: wire.field });
  } else {
    error = Object.assign(new Error(wire.message), wire.code === undefined ? {} : { code: wire.code });
    error.name = wire.name;
  }
  // The writer thread's stack: where it failed, which this side's would not show.
  if (wire.stack !== undefined) error.stack = wire.stack;
  return error;
}
