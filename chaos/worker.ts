/**
 * One worker process of the chaos harness: the real runtime (a WorkerPool
 * and a Dispatcher, as `vigil serve` runs them) on the shared store, with
 * the chaos agent, the journal channel and the grant log. It says `ready`
 * over IPC, then works until it is killed: it has no way to stop itself
 * other than dying, which is the point.
 *
 *   node --import tsx chaos/worker.ts '<json WorkerConfig>'
 *
 * IPC from the parent: { type: 'arm', point } arms a crash point;
 * { type: 'disarm' } clears them (the drain). To the parent: 'ready', and
 * { type: 'kill-me' } at the in-finish / in-dispatch points.
 */
import { Dispatcher } from '../src/runtime/dispatcher.js';
import { RuntimeEvents } from '../src/events.js';
import { WorkerPool } from '../src/runtime/worker-pool.js';
import type { StoreOptions } from '../src/store/contract.js';
import { openStore } from '../src/store/index.js';
import { chaosAgent } from './chaos-agent.js';
import { chaosStore } from './chaos-store.js';
import { CHAOS_POINTS, CrashPoints, type ChaosPoint } from './crash-points.js';
import { journalChannel } from './journal-channel.js';
import { Journal } from './journal.js';

export interface WorkerConfig {
  storeUrl: string;
  storeOptions: StoreOptions;
  holder: string;
  journalFile: string;
  concurrency: number;
  leaseTtlMs: number;
  atMostOnce: boolean;
}

export type ParentMessage = { type: 'arm'; point: ChaosPoint } | { type: 'disarm' };

const config = JSON.parse(process.argv[2] ?? '') as WorkerConfig;
const journal = new Journal(config.journalFile);
const crashes = new CrashPoints(journal, config.holder);
process.on('message', (message: ParentMessage) => {
  if (message.type === 'arm' && CHAOS_POINTS.includes(message.point)) {
    journal.write({ k: 'armed', holder: config.holder, point: message.point });
    crashes.arm(message.point);
  }
  if (message.type === 'disarm') crashes.disarm();
});
// The parent gone (it crashed, or its test timed out): nobody will kill us, so go.
process.on('disconnect', () => process.exit(0));

const store = chaosStore(await openStore(config.storeUrl, config.storeOptions), { journal, crashes });
const events = new RuntimeEvents();
const agent = chaosAgent((inboxId, event) => journal.write({ k: 'crash', holder: config.holder, point: 'poison', inbox: inboxId, event: event.sourceId }));
const pool = new WorkerPool({
  store,
  agent,
  events,
  holder: config.holder,
  concurrency: config.concurrency,
  leaseTtlMs: config.leaseTtlMs,
  pollIntervalMs: 500,
  busyCooldownMs: 200,
  // The checks count one reply per done event; a reminder is the runtime's message, sent or not as the
  // answer races it, so the chaos run asks without one (test/runtime/approval-reminders.test.ts crashes those).
  approvalRemindAt: null,
});
const dispatcher = new Dispatcher({
  store,
  channels: [journalChannel(journal, crashes, config.holder)],
  events,
  leaseTtlMs: config.leaseTtlMs,
  pollIntervalMs: 500,
  retry: { baseMs: 100, maxMs: 1_000 },
  delivery: config.atMostOnce ? 'at-most-once' : 'at-least-once',
});
await pool.start();
await dispatcher.start();
process.send?.({ type: 'ready' });
