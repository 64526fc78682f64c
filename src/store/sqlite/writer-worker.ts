/**
 * The writer thread's side (writer-thread.ts): a SqliteStore per store of
 * the main thread, on connections of its own, committing what it is sent
 * with the store's own commitEvents, and answering each commit after it.
 * Messages are handled one at a time, in the order sent: a store's close
 * comes after every commit sent before it.
 */
import { parentPort } from 'node:worker_threads';
import { clockFromSharedTime, systemClock } from '../../clock.js';
import { SqliteStore } from './sqlite-store.js';
import { toWire, unpackEvents, unpackQuotas, type FromWriter, type ToWriter, type WireError, type WriterStoreSpec } from './writer-protocol.js';

const port = parentPort;
if (port === null) throw new Error('writer-worker.ts runs as the SQLite writer thread (writer-thread.ts starts it)');

/** Each main-thread store by its number: its SqliteStore here, or why it could not be opened. */
const stores = new Map<number, SqliteStore | WireError>();

function open({ dir, options, clock }: WriterStoreSpec): SqliteStore | WireError {
  try {
    return new SqliteStore(
      dir,
      { ...options, budget: options.budget ?? undefined, writerThread: false, clock: clock.kind === 'system' ? systemClock : clockFromSharedTime(clock.cell) },
      // The main thread's store runs the rebuild after a boot; this one only commits.
      { rebuild: false },
    );
  } catch (error) {
    return toWire(error);
  }
}

function reply(message: FromWriter): void {
  port!.postMessage(message);
}

async function handle(message: ToWriter): Promise<void> {
  if (message.type === 'open') {
    stores.set(message.store, open(message.spec));
    return;
  }
  const store = stores.get(message.store);
  if (store === undefined) {
    reply({ type: 'failed', call: message.call, error: toWire(new Error(`the writer thread has no store ${message.store}`)) });
    return;
  }
  if (message.type === 'close') {
    stores.delete(message.store);
    if (store instanceof SqliteStore) await store.close();
    reply({ type: 'closed', call: message.call });
    return;
  }
  if (!(store instanceof SqliteStore)) {
    reply({ type: 'failed', call: message.call, error: store });
    return;
  }
  try {
    const events = unpackEvents(message.events);
    reply({ type: 'committed', call: message.call, results: store.commitEvents(message.inboxId, events, message.burst, unpackQuotas(message.quotas, events.length)) });
  } catch (error) {
    reply({ type: 'failed', call: message.call, error: toWire(error) });
  }
}

port.on('message', (message: ToWriter) => {
  handle(message).catch((error: unknown) => {
    if ('call' in message) reply({ type: 'failed', call: message.call, error: toWire(error) });
  });
});
