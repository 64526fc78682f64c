/**
 * The example agent run by hand against a real SQLite store on a fake
 * clock: what its digest says after an outage with dead events, that a
 * refund repeated after a crash (same events, same idempotency key) is
 * performed once, and that a run with nothing to say stays silent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createDemoAgent } from '../../src/demo/demo-agent.js';
import { RefundLedger } from '../../src/demo/refund-ledger.js';
import type { AgentResult } from '../../src/agent/agent.js';
import { createFakeClock, openStore, type FakeClock, type Inbox, type Store } from '../../src/index.js';
import { createAgentContext } from '../../src/runtime/agent-context.js';

const DAY = 86_400_000;
const START = Date.UTC(2030, 0, 1, 12, 0, 0);

let dir: string;
let store: Store;
let clock: FakeClock;
let inbox: Inbox;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-example-agent-'));
  clock = createFakeClock(START);
  store = await openStore(`sqlite:${dir}`, { clock: clock.now, maxAttempts: 1, leaseTtlMs: 1_000 });
  inbox = store.inbox('erin');
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const agent = () => createDemoAgent({ refundsFile: join(dir, 'refunds.jsonl') });

/** Calls to stats() the agent made through its context, counted by the run helper below. */
let statsCalls = 0;

/** One run as a worker does it: acquire, claim, the agent, then finish and release unless `crash`. */
async function run(holder: string, options: { crash?: boolean } = {}): Promise<AgentResult> {
  const gen = (await inbox.acquire(holder))!;
  const events = await inbox.claimBatch(holder, gen);
  const example = agent();
  const counted = new Proxy(inbox, {
    get: (target, key, receiver) => {
      if (key === 'stats') statsCalls += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const context = createAgentContext({ agent: example, inbox: counted, events, signal: new AbortController().signal, now: clock.now() });
  const result = await example.run(context.ctx);
  if (options.crash !== true) {
    // As the runtime does: the approvals the run asked for and its memory go with its finish.
    const approvals = context.approvals();
    const memory = context.memory();
    await inbox.finish(holder, gen, events.map((e) => e.id), {
      ...('messages' in result ? { messages: result.messages } : {}),
      ...(approvals.length > 0 ? { approvals } : {}),
      ...(memory === undefined ? {} : { memory }),
    });
    await inbox.release(holder, gen);
  }
  return result;
}

it('the digest after a three-day outage covers four days and counts the dead events', async () => {
  // A poison event: claimed by a worker that dies, then dead at the next claim (maxAttempts 1).
  await inbox.ingest({ source: 'chat', sourceId: 'poison', payload: { text: 'boom' } });
  await run('w1', { crash: true });
  clock.advance(2_000);
  await inbox.ingest({ source: 'chat', sourceId: 'hello', payload: { text: 'hi' } });
  expect(await run('w2')).toEqual({ messages: ['You said: "hi". (Try "refund order 42" to see an approval.)'] });
  expect((await inbox.stats()).events.dead).toBe(1);

  // The first run added the digest: 09:00 UTC daily. Four occurrences pass before the scheduler runs again.
  const [timer] = await inbox.timers();
  expect([timer!.id, timer!.cron, timer!.due]).toEqual(['daily-digest', '0 9 * * *', START + DAY - 3 * 3_600_000]);
  clock.set(timer!.due + 3 * DAY + 60_000);
  expect(await inbox.runScheduler()).toBe(1);
  expect(await run('w3')).toEqual({ messages: ['Daily digest: covers 4 days; 1 dead event (see: vigil events <inbox> --status dead).'] });
});

it('a refund repeated after a crash is performed once', async () => {
  await inbox.ingest({ source: 'chat', sourceId: 'ask', payload: { text: 'Refund order #5 please' } });
  const asked = await run('w1');
  expect(asked).toEqual({ messages: [{ body: 'URGENT: approve a refund of order 5? This expires in 1 hour. vigil approve erin refund-5 yes', urgent: true }] });
  expect(await inbox.answerApproval('refund-5', 'yes')).toBe('yes');

  // The worker performs the refund and dies before finish; the next one runs the same event again.
  expect(await run('w2', { crash: true })).toEqual({ messages: ['Refunded order 5.'] });
  clock.advance(2_000);
  await store.close();
  store = await openStore(`sqlite:${dir}`, { clock: clock.now, maxAttempts: 2, leaseTtlMs: 1_000 });
  inbox = store.inbox('erin');
  expect(await run('w3')).toEqual({ messages: ['Refunded order 5.'] });

  const records = await new RefundLedger(join(dir, 'refunds.jsonl')).records();
  expect(records.map((r) => [r.inboxId, r.order, r.approvalId])).toEqual([['erin', '5', 'refund-5']]);
});

it('an expired approval refunds nothing; a ping and an empty message say nothing', async () => {
  await inbox.ingest({ source: 'chat', sourceId: 'ask', payload: { text: 'refund order 6' } });
  await run('w1');
  clock.advance(3_600_000);
  await inbox.runScheduler();
  expect(await run('w2')).toEqual({ messages: ['Did not refund order 6: the approval expired.'] });

  await inbox.ingest({ source: 'github', sourceId: 'ping-1', payload: { zen: 'Keep it logically awesome.', hook_id: 1 } });
  await inbox.ingest({ source: 'chat', sourceId: 'blank', payload: { text: '   ' } });
  expect(await run('w3')).toEqual({ nothing: true });
  expect(await new RefundLedger(join(dir, 'refunds.jsonl')).records()).toEqual([]);
});

it('counts the inbox (stats()) only for its first run and its digests: a chat run reads no history', async () => {
  statsCalls = 0;
  await inbox.ingest({ source: 'chat', sourceId: 'first', payload: { text: 'hi' } });
  await run('w1');
  expect(statsCalls).toBe(1); // is there a digest timer yet? (no: it adds one)
  expect((await inbox.timers()).map((t) => t.id)).toEqual(['daily-digest']);

  for (let i = 0; i < 3; i++) {
    await inbox.ingest({ source: 'chat', sourceId: `more-${i}`, payload: { text: `message ${i}` } });
    await run('w1');
  }
  expect(statsCalls).toBe(1);

  const [timer] = await inbox.timers();
  clock.set(timer!.due);
  expect(await inbox.runScheduler()).toBe(1);
  expect(await run('w1')).toEqual({ messages: ['Daily digest: covers 1 day; no dead events.'] });
  expect(statsCalls).toBe(2); // the digest's dead count
});

it('an inbox whose digest was scheduled before the memory note keeps its timer as it was', async () => {
  // As an older example agent left it: the timer, and no note.
  await inbox.addTimer({ id: 'daily-digest', cron: '0 9 * * *', tz: 'UTC', payload: { task: 'daily digest' } });
  const [before] = await inbox.timers();
  clock.advance(3_600_000);
  await inbox.ingest({ source: 'chat', sourceId: 'after-upgrade', payload: { text: 'hi' } });
  await run('w1');
  expect(await inbox.timers()).toEqual([before]);
  expect(await inbox.getMemory()).toEqual({ 'example:digest-scheduled': true });
});
