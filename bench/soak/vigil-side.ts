/**
 * Vigil under the soak, through the public API only: the parent opens the
 * store to ingest (the producer plays the webhook handler), and N worker
 * processes (vigil-worker.ts) run a WorkerPool and a Dispatcher on it.
 *
 * Store options: the defaults, except leaseTtlMs (config.ts says why) and
 * outboxGapMs 0: the outbox's pacing is for people, one message an hour by
 * default, and a soak that measures latency to the delivered reply needs
 * every reply to go as soon as it is queued.
 */
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openStore, type Store, type StoreOptions } from '../../src/index.js';
import { pollFor, type SoakConfig } from './config.js';
import { Fleet } from './fleet.js';
import { Ledger } from './ledger.js';
import { inboxName, Producer, withRetries } from './load.js';
import type { Side, SideStorage, StoreFinding } from './side.js';
import { dirStorage, pgStorage } from './storage.js';
import type { VigilWorkerConfig } from './vigil-worker.js';

const WORKER = fileURLToPath(new URL('./vigil-worker.ts', import.meta.url));
export const SOURCE = 'soak';

export type VigilPlace = { store: 'postgres'; url: string; schema: string; admin: pg.Pool } | { store: 'sqlite'; dir: string };

export function vigilStoreOptions(config: SoakConfig, place: VigilPlace): StoreOptions {
  return { leaseTtlMs: config.leaseTtlMs, outboxGapMs: 0, ...(place.store === 'postgres' ? { schema: place.schema } : {}) };
}

export async function openVigilSide(config: SoakConfig, place: VigilPlace, log: (line: string) => void): Promise<Side> {
  const storeUrl = place.store === 'postgres' ? place.url : `sqlite:${place.dir}`;
  const storeOptions = vigilStoreOptions(config, place);
  const store = await openStore(storeUrl, storeOptions);
  const ledger = new Ledger();
  const producer = new Producer({
    inboxes: config.inboxes,
    maxInFlight: 32,
    async submit(payload) {
      ledger.offer(payload.seq, payload.t);
      const { value: stored, failures } = await withRetries(20, () =>
        store.inbox(payload.inbox).ingest({ source: SOURCE, sourceId: String(payload.seq), payload }),
      );
      ledger.stored(payload.seq, { duplicate: !stored, afterFailure: failures > 0 });
    },
    onGaveUp(payload, error) {
      ledger.gaveUp(payload.seq);
      log(`vigil: gave up ingesting event ${payload.seq}: ${String(error)}`);
    },
  });
  const pollIntervalMs = pollFor(config, place.store);
  const fleet = new Fleet({
    side: 'vigil',
    script: WORKER,
    workers: config.workers,
    argFor: (name): VigilWorkerConfig => ({ storeUrl, storeOptions, holder: name, concurrency: config.concurrency, pollIntervalMs }),
    onMessage(message) {
      if (message.type === 'done') ledger.done(message.count);
      else if (message.type === 'delivered') ledger.delivered(message.at, message.messages);
    },
    log,
  });

  return {
    key: 'vigil',
    ledger,
    producer,
    fleet,
    async storage(): Promise<SideStorage> {
      return place.store === 'postgres' ? { kind: 'postgres', ...(await pgStorage(place.admin, place.schema)) } : { kind: 'sqlite', ...dirStorage(place.dir) };
    },
    findings: () => vigilFindings(store, config.inboxes, ledger.storedCount),
    supervisorNotes: () => [],
    async close() {
      await store.close();
    },
  };
}

/** Every inbox's own counts, summed: each stored event done, nothing left pending, running, dead or held, one sent reply per event. */
async function vigilFindings(store: Store, inboxes: number, stored: number): Promise<StoreFinding[]> {
  const sum = { done: 0, pending: 0, running: 0, dead: 0, held: 0, sent: 0 };
  for (let i = 0; i < inboxes; i++) {
    const stats = await store.inbox(inboxName(i)).stats();
    sum.done += stats.events.done;
    sum.pending += stats.events.pending;
    sum.running += stats.events.running;
    sum.dead += stats.events.dead;
    sum.held += stats.outbox.held;
    sum.sent += stats.outbox.sent;
  }
  const n = (x: number): string => x.toLocaleString('en-US');
  return [
    { name: 'store: events done = events stored', value: `${n(sum.done)} done, ${n(stored)} stored`, ok: sum.done === stored, invariant: true },
    {
      name: 'store: nothing pending, running or dead',
      value: `${n(sum.pending)} pending, ${n(sum.running)} running, ${n(sum.dead)} dead`,
      ok: sum.pending + sum.running + sum.dead === 0,
      invariant: true,
    },
    {
      name: 'store: one reply per event (a second reply would mean a second finish)',
      value: `${n(sum.sent)} sent, ${n(sum.held)} held, for ${n(stored)} events`,
      ok: sum.sent === stored && sum.held === 0,
      invariant: true,
    },
  ];
}
