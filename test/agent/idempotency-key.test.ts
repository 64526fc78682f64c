/**
 * A side effect's idempotency key must survive the way retries are batched:
 * a crashed batch comes back one event per claim (R4), so a key over the
 * whole batch would change on the retry and refund twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createFakeClock, defineAgent, openStore, type ClaimedEvent, type Store } from '../../src/index.js';
import { createAgentContext } from '../../src/runtime/agent-context.js';

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

it('the key for an event is the same when the crashed batch is retried one event at a time', async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-key-'));
  const clock = createFakeClock(1_000_000_000);
  store = await openStore(`sqlite:${dir}`, { clock: clock.now, leaseTtlMs: 1_000, retryBackoff: { baseMs: 0, maxMs: 0 } });
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 'chat', sourceId: 'm-1', payload: { text: 'hello' } });
  await inbox.ingest({ source: 'approval', sourceId: 'refund-42', payload: { answer: 'yes' } });
  const keyIn = (events: ClaimedEvent[], withEvent: boolean): string => {
    const { ctx } = createAgentContext({ agent: defineAgent({ run: async () => ({ nothing: true }) }), inbox, events, signal: new AbortController().signal, now: clock.now() });
    const approval = events.find((e) => e.source === 'approval')!;
    return withEvent ? ctx.idempotencyKey('refund', approval) : ctx.idempotencyKey('refund');
  };

  // The first run claims both, refunds, and crashes before finish.
  const gen1 = (await inbox.acquire('W1'))!;
  const first = await inbox.claimBatch('W1', gen1);
  expect(first.map((e) => e.sourceId)).toEqual(['m-1', 'refund-42']);
  const perEvent = keyIn(first, true);
  const perBatch = keyIn(first, false);

  // The retries come back alone, oldest first.
  clock.advance(1_001);
  const gen2 = (await inbox.acquire('W2'))!;
  const chatAlone = await inbox.claimBatch('W2', gen2);
  expect(chatAlone.map((e) => e.sourceId)).toEqual(['m-1']);
  await inbox.finish('W2', gen2, chatAlone.map((e) => e.id));
  const approvalAlone = await inbox.claimBatch('W2', gen2);
  expect(approvalAlone.map((e) => e.sourceId)).toEqual(['refund-42']);

  expect(keyIn(approvalAlone, true)).toBe(perEvent);
  // What a batch-wide key would have done: a different key, a second refund.
  expect(keyIn(approvalAlone, false)).not.toBe(perBatch);
});
