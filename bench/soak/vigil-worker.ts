/**
 * One Vigil worker process of the soak: a WorkerPool and a Dispatcher on the
 * shared store, as `vigil serve` runs them, through the public API only;
 * with retention (--retention), also the Pruner `vigil serve` runs
 * (src/runtime/pruner.ts, not part of the public API), at its defaults.
 *
 *   node --import tsx bench/soak/vigil-worker.ts '<json VigilWorkerConfig>'
 *
 * The agent replies one message per event, its body the event's payload
 * (seq and offer time), so the parent can match every delivered reply to
 * its event. The channel reports each delivered batch to the parent over
 * IPC (protocol.ts). The process works until it is killed; it leaves by
 * itself only when the parent is gone.
 */
import { defineAgent, Dispatcher, openStore, WorkerPool, type Channel, type StoreOptions } from '../../src/index.js';
import { Pruner } from '../../src/runtime/pruner.js';
import { doneCounter, sendToParent } from './protocol.js';

export interface VigilWorkerConfig {
  storeUrl: string;
  storeOptions: StoreOptions;
  holder: string;
  concurrency: number;
  pollIntervalMs: number | null;
  /** Run a Pruner (the store options carry a retention). */
  prune: boolean;
}

const config = JSON.parse(process.argv[2] ?? '') as VigilWorkerConfig;
// The parent gone (it failed, or was interrupted): nobody will kill us, so go.
process.on('disconnect', () => process.exit(0));

const store = await openStore(config.storeUrl, config.storeOptions);
const countDone = doneCounter();
store.events.on('run:finished', (run) => {
  if (run.outcome === 'messages' || run.outcome === 'nothing') countDone(run.eventIds.length);
});

const agent = defineAgent({
  name: 'soak-echo',
  async run(ctx) {
    return { messages: ctx.events.map((event) => JSON.stringify(event.payload)) };
  },
});

const channel: Channel = {
  name: 'soak-parent',
  async send(message) {
    await sendToParent({ type: 'delivered', at: Date.now(), messages: message.messages.map((m) => ({ id: m.id, body: m.body })) });
  },
};

const poll = config.pollIntervalMs === null ? {} : { pollIntervalMs: config.pollIntervalMs };
const pool = new WorkerPool({ store, agent, holder: config.holder, concurrency: config.concurrency, ...poll });
const dispatcher = new Dispatcher({ store, channels: [channel], retry: { baseMs: 100, maxMs: 2_000 }, ...poll });
await pool.start();
await dispatcher.start();
if (config.prune) {
  // One report per prune call that removed anything (a few a minute), sent as it happens: nothing to sum.
  store.events.on('store:pruned', (pruned) => {
    sendToParent({ type: 'pruned', events: pruned.events, messages: pruned.messages }).catch(() => undefined);
  });
  new Pruner({ store }).start();
}
await sendToParent({ type: 'ready' });
