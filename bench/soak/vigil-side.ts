/**
 * Vigil under the soak, through the public API only: the parent opens the
 * store to ingest (the producer plays the webhook handler), and N worker
 * processes (vigil-worker.ts) run a WorkerPool and a Dispatcher on it, and
 * with retention a Pruner each.
 *
 * Store options: the defaults, except leaseTtlMs (config.ts says why),
 * outboxGapMs 0 (the outbox's pacing is for people, one message an hour by
 * default, and a soak that measures latency to the delivered reply needs
 * every reply to go as soon as it is queued), and with --retention the
 * retention of done events and sent messages.
 *
 * With retention the store's own counts no longer hold every event:
 * stats() leaves pruned rows out. A pruned event leaves its key as a
 * tombstone, so done + tombstones must still equal what was stored,
 * exactly. A pruned message leaves nothing; the workers report what they
 * pruned, and a report lost to a SIGKILL makes that sum short, never long.
 */
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openStore, type Store, type StoreOptions } from '../../src/index.js';
import { pollFor, type SoakConfig } from './config.js';
import { Fleet } from './fleet.js';
import { Ledger } from './ledger.js';
import { quoteIdent } from '../../src/store/postgres/connection.js';
import { inboxName, Producer, withRetries } from './load.js';
import type { Side, SideStorage, StoreFinding } from './side.js';
import { dirStorage, pgStorage } from './storage.js';
import type { VigilWorkerConfig } from './vigil-worker.js';

const WORKER = fileURLToPath(new URL('./vigil-worker.ts', import.meta.url));
export const SOURCE = 'soak';

export type VigilPlace = { store: 'postgres'; url: string; schema: string; admin: pg.Pool } | { store: 'sqlite'; dir: string };

export function vigilStoreOptions(config: SoakConfig, place: VigilPlace): StoreOptions {
  return {
    leaseTtlMs: config.leaseTtlMs,
    outboxGapMs: 0,
    ...(config.retentionMs === null ? {} : { retention: { doneEventsMs: config.retentionMs, sentMessagesMs: config.retentionMs } }),
    ...(place.store === 'postgres' ? { schema: place.schema } : {}),
  };
}

/** Keys of pruned events: the schema's tombstones table, or (SQLite) every inbox's tombstone records. */
async function countTombstones(store: Store, place: VigilPlace, inboxes: number): Promise<number> {
  if (place.store === 'postgres') {
    const { rows } = await place.admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${quoteIdent(place.schema)}.tombstones`);
    return Number(rows[0]?.n ?? 0);
  }
  let n = 0;
  for (let i = 0; i < inboxes; i++) {
    for await (const record of store.exportInbox(inboxName(i))) if (record.type === 'tombstone') n += 1;
  }
  return n;
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
  const pruned = { events: 0, messages: 0 };
  const fleet = new Fleet({
    side: 'vigil',
    script: WORKER,
    workers: config.workers,
    argFor: (name): VigilWorkerConfig => ({ storeUrl, storeOptions, holder: name, concurrency: config.concurrency, pollIntervalMs, prune: config.retentionMs !== null }),
    onMessage(message) {
      if (message.type === 'done') ledger.done(message.count);
      else if (message.type === 'delivered') ledger.delivered(message.at, message.messages);
      else if (message.type === 'pruned') {
        pruned.events += message.events;
        pruned.messages += message.messages;
      }
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
    findings: async () =>
      vigilFindings(
        store,
        config.inboxes,
        ledger.storedCount,
        config.retentionMs === null ? null : { tombstones: await countTombstones(store, place, config.inboxes), reported: { ...pruned } },
      ),
    // Sampled on PostgreSQL only: on SQLite the count reads every inbox file, in the process whose producer keeps the offered rate.
    retention:
      config.retentionMs === null
        ? undefined
        : async () => ({
            prunedEvents: pruned.events,
            prunedMessages: pruned.messages,
            ...(place.store === 'postgres' ? { tombstones: await countTombstones(store, place, config.inboxes) } : {}),
          }),
    supervisorNotes: () => [],
    async close() {
      await store.close();
    },
  };
}

/**
 * Every inbox's own counts, summed: each stored event done, nothing left
 * pending, running, dead or held, one sent reply per event. With retention,
 * `pruned` holds the tombstones (exact) and what the workers reported.
 */
async function vigilFindings(
  store: Store,
  inboxes: number,
  stored: number,
  pruned: { tombstones: number; reported: { events: number; messages: number } } | null,
): Promise<StoreFinding[]> {
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
  const findings: StoreFinding[] = [];
  if (pruned === null) {
    findings.push({ name: 'store: events done = events stored', value: `${n(sum.done)} done, ${n(stored)} stored`, ok: sum.done === stored, invariant: true });
  } else {
    findings.push({
      name: 'store: events done + pruned (their tombstones) = events stored',
      value: `${n(sum.done)} done + ${n(pruned.tombstones)} tombstones = ${n(sum.done + pruned.tombstones)}, ${n(stored)} stored`,
      ok: sum.done + pruned.tombstones === stored,
      invariant: true,
    });
  }
  findings.push({
    name: 'store: nothing pending, running or dead',
    value: `${n(sum.pending)} pending, ${n(sum.running)} running, ${n(sum.dead)} dead`,
    ok: sum.pending + sum.running + sum.dead === 0,
    invariant: true,
  });
  if (pruned === null) {
    findings.push({
      name: 'store: one reply per event (a second reply would mean a second finish)',
      value: `${n(sum.sent)} sent, ${n(sum.held)} held, for ${n(stored)} events`,
      ok: sum.sent === stored && sum.held === 0,
      invariant: true,
    });
  } else {
    // Pruned messages leave no trace to count: the workers' reports can only fall short (a SIGKILL between a prune and its report).
    const short = stored - sum.sent - pruned.reported.messages;
    findings.push({
      name: 'store: no more replies than events, none held (sent + pruned as the workers reported; a second finish would make it more)',
      value:
        `${n(sum.sent)} sent + ${n(pruned.reported.messages)} pruned = ${n(sum.sent + pruned.reported.messages)}, ${n(sum.held)} held, for ${n(stored)} events` +
        (short > 0 ? ` (${n(short)} short: prune reports lost to kills)` : ''),
      ok: sum.sent + pruned.reported.messages <= stored && sum.held === 0,
      invariant: true,
    });
    findings.push({
      name: 'prune reports: events the workers reported pruned vs tombstones in the store',
      value: `${n(pruned.reported.events)} reported, ${n(pruned.tombstones)} tombstones`,
      ok: pruned.reported.events <= pruned.tombstones,
      invariant: false,
    });
  }
  return findings;
}
