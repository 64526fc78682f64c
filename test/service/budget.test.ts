/**
 * Issue 51, "A budget per user", through a real `vigil serve` whose clock
 * the test moves (test/fixtures/shifted-clock.mjs): a user in Europe/Berlin
 * with costPerDayUsd 1 chats with an agent whose fake model reports 0.40 a
 * reply; the third reply spends the budget, the inbox pauses with exactly
 * one urgent notice, later messages wait (never attempted), and on the
 * person's next day they run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { startOfNextLocalDay } from '../../src/store/periods.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, journeyRequests, type Receiver, type ServeProcess } from '../fixtures/service-process.js';

const TOKEN = 'budget-token-0123456789abcdef0123456';
const INBOX = 'ana';
const ZONE = 'Europe/Berlin';
/** Several worker polls (200 ms) and outbox passes: what did not happen by then is not coming. */
const QUIET_MS = 1_500;

const harness = new ServiceHarness();
let url: string;
let receiver: Receiver;
let clockFile: string;
let store: Store;
let dir: string;
let serve: ServeProcess;

beforeAll(async () => {
  dir = harness.tempDir('vigil-budget-');
  receiver = await harness.receiver();
  clockFile = join(dir, 'clock-shift');
  writeFileSync(clockFile, '0');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/metered-agent.ts'),
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    // The config's default budget: every inbox's, each field of its own settings overriding it.
    budget: { costPerMonthUsd: 100 },
    // Ingests on the calling thread: the shifted clock is this thread's Date.now.
    engine: { outboxGapMs: 0, writerThread: false },
    workers: { pollIntervalMs: 200 },
  });
  const shifted = pathToFileURL(join(REPO_ROOT, 'test/fixtures/shifted-clock.mjs')).href;
  serve = harness.serve(config, { NODE_OPTIONS: `--import=${shifted}`, VIGIL_TEST_CLOCK_FILE: clockFile });
  url = await serve.url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

const delivered = () => journeyRequests.delivered(receiver);
const replies = () => delivered().filter((m) => m.body.startsWith('reply to'));
const notices = () => delivered().filter((m) => /budget is spent/.test(m.body));

async function send(text: string): Promise<void> {
  expect(await journeyRequests.sendChat(url, TOKEN, INBOX, text, `key-${text}`)).toBe(202);
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/inboxes/${INBOX}/${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
}

it('a user past costPerDayUsd is paused with one urgent notice; messages wait unattempted; the next local day they run', async () => {
  const set = await api('settings', { method: 'PATCH', body: JSON.stringify({ timeZone: ZONE, budget: { costPerDayUsd: 1 } }) });
  expect(set.status).toBe(200);

  for (const [i, text] of ['first', 'second', 'third'].entries()) {
    await send(text);
    await waitFor(`the reply to ${text}`, () => replies().length === i + 1);
  }
  // 3 × 0.40 = 1.20 ≥ 1: paused, and the person hears of it once, urgently.
  const notice = await waitFor('the pause notice', () => notices()[0]);
  const logged = await serve.log('the pause', (line) => line.msg.startsWith('inbox paused for spend'));
  expect(logged).toMatchObject({ inboxId: INBOX, reason: 'costPerDayUsd' });
  expect(notice.urgent).toBe(true);
  expect(notice.body).toContain(`(${ZONE})`);

  await send('fourth');
  await send('fifth');
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  expect(replies()).toHaveLength(3);
  expect(notices()).toHaveLength(1);
  const waiting = (await store.inbox(INBOX).events()).filter((e) => e.status === 'pending');
  expect(waiting.map((e) => e.attempts)).toEqual([0, 0]);
  const stats = (await (await api('stats')).json()) as { budget: { pausedUntil: number; reason: string } };
  const nextDay = startOfNextLocalDay(Date.now(), ZONE);
  expect(stats.budget).toMatchObject({ pausedUntil: nextDay, reason: 'costPerDayUsd' });

  // The service's clock reaches the person's next day: the waiting messages run, and no second notice goes.
  writeFileSync(clockFile, String(nextDay - Date.now() + 1_000));
  // Both in one run (one batch, one model call, one reply).
  const resumed = await waitFor('the reply to the waiting messages', () => replies().find((m) => m.body.includes('fifth')), 30_000);
  expect(resumed.body).toContain('fourth');
  expect(notices()).toHaveLength(1);
  expect((await store.inbox(INBOX).events()).every((e) => e.status === 'done' && e.attempts === 1)).toBe(true);
}, 90_000);
