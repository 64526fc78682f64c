/**
 * The agent, tested the way Vigil runs it: a real (throwaway) SQLite store,
 * events ingested as the service would store them, and one worker turn
 * (`runOnce`) through the runtime's own code path. Run with `npm test`.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { runOnce, throwawayStore, type ThrowawayStore } from 'vigil-agents/testing';
import agent from './agent.ts';

let kit: ThrowawayStore;
beforeEach(async () => {
  // outboxGapMs 0: every reply can be read at once (the service paces them).
  kit = await throwawayStore({ outboxGapMs: 0 });
});
afterEach(() => kit.close());

/** The messages the agent queued for `inbox`, as the outbox would send them. */
async function replies(inbox: string): Promise<string[]> {
  const sent: string[] = [];
  await kit.store.inbox(inbox).dispatch((body) => {
    sent.push(body);
  });
  return sent;
}

test('a chat message gets an answer that counts the messages', async () => {
  const alice = kit.store.inbox('alice');
  await alice.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'hello' } });
  await runOnce({ store: kit.store, inbox: 'alice', agent, clock: kit.clock });
  assert.deepEqual(await replies('alice'), ['You said: "hello" (message 1 from you).']);

  await alice.ingest({ source: 'chat', sourceId: 'm2', payload: { text: 'again' } });
  await runOnce({ store: kit.store, inbox: 'alice', agent, clock: kit.clock });
  assert.deepEqual(await replies('alice'), ['You said: "again" (message 2 from you).']);
});

test('a GitHub webhook delivered twice is answered once', async () => {
  const delivery = { source: 'github', sourceId: 'delivery-1', payload: { action: 'opened', issue: { title: 'Crash on save' } } };
  assert.equal(await kit.store.inbox('bob').ingest(delivery), true);
  assert.equal(await kit.store.inbox('bob').ingest(delivery), false); // the redelivery is a duplicate
  const turn = await runOnce({ store: kit.store, inbox: 'bob', agent, clock: kit.clock });
  assert.deepEqual(turn.runs.map((run) => run.outcome), ['messages']);
  assert.deepEqual(await replies('bob'), ['GitHub: opened "Crash on save" (delivery delivery-1).']);
});

test('an event it has nothing to say about sends nothing', async () => {
  await kit.store.inbox('carol').ingest({ source: 'timer', sourceId: 'tick@1', payload: {} });
  const turn = await runOnce({ store: kit.store, inbox: 'carol', agent, clock: kit.clock });
  assert.deepEqual(turn.runs.map((run) => run.outcome), ['nothing']);
  assert.deepEqual(await replies('carol'), []);
});
