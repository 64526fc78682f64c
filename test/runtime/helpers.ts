/**
 * Shared by the runtime tests: a real SQLite store in a temp dir, cleanup
 * that runs even when a test fails, and a channel that records what it got.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { Channel, OutgoingMessage } from '../../src/channels/channel.js';
import { openStore, type Inbox, type OutboxMessage, type Store, type StoreOptions } from '../../src/index.js';
import type { RuntimeEventMap, RuntimeEventName, RuntimeEvents } from '../../src/events.js';

const cleanups: (() => Promise<void> | void)[] = [];

/** Registers `fn` to run after the current test, last registered first. */
export function defer(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

afterEach(async () => {
  const errors: unknown[] = [];
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()!();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
});

export interface TempStore {
  store: Store;
  dir: string;
  /** Another store object on the same directory: what a second process would open. */
  reopen(more?: StoreOptions): Promise<Store>;
}

export async function tempStore(options: StoreOptions = {}): Promise<TempStore> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-runtime-'));
  const opened: Store[] = [];
  defer(() => rmSync(dir, { recursive: true, force: true }));
  const open = async (more: StoreOptions = {}): Promise<Store> => {
    const store = await openStore(`sqlite:${dir}`, { ...options, ...more });
    opened.push(store);
    defer(() => store.close());
    return store;
  };
  return { store: await open(), dir, reopen: open };
}

/** Puts messages into an inbox's outbox the way a run does: lease, claim, finish. */
export async function queueMessages(inbox: Inbox, sourceId: string, messages: OutboxMessage[]): Promise<void> {
  expect(await inbox.ingest({ source: 'test', sourceId })).toBe(true);
  const gen = await inbox.acquire('queue-helper');
  expect(gen).not.toBeNull();
  const claimed = await inbox.claimBatch('queue-helper', gen!);
  expect(await inbox.finish('queue-helper', gen!, claimed.map((e) => e.id), { messages })).toBe(true);
  expect(await inbox.release('queue-helper', gen!)).toBe(true);
}

/** A promise with its resolve handle: for agents and channels that wait on the test. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export interface RecordingChannel extends Channel {
  readonly received: OutgoingMessage[];
  /** Fail the next `n` sends with this error. */
  failNext(n: number, message?: string): void;
}

/** A real Channel that keeps what it delivered (and can be told to fail). */
export function recordingChannel(name = 'recorder'): RecordingChannel {
  const received: OutgoingMessage[] = [];
  let failures = 0;
  let failure = 'channel down';
  return {
    name,
    received,
    failNext(n, message = 'channel down') {
      failures = n;
      failure = message;
    },
    async send(message) {
      if (failures > 0) {
        failures -= 1;
        throw new Error(failure);
      }
      received.push(message);
    },
  };
}

/** Bounded: a test that waits for something that never comes fails here, with a name. */
const WAIT_MS = 10_000;

/** The next runtime event `name` passing `filter`; call it before causing the event. */
export function nextEvent<K extends RuntimeEventName>(
  events: RuntimeEvents,
  name: K,
  filter: (payload: RuntimeEventMap[K]) => boolean = () => true,
): Promise<RuntimeEventMap[K]> {
  return events.next(name, filter, AbortSignal.timeout(WAIT_MS)).catch((error: unknown) => {
    throw new Error(`no '${name}' event within ${WAIT_MS} ms`, { cause: error });
  });
}

/**
 * Polls a condition on the store until it holds: for facts no runtime
 * event announces (an event parked as dead by a claim).
 */
export async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${WAIT_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
