/**
 * examples/slack-assistant end to end: a real `vigil serve` running the
 * example's agent with the example's vigil.json (paths, port and the Slack
 * API's URL changed for the test), signed Slack requests (v0) to the one
 * URL per kind a Slack app has, and a local fake of the Slack Web API that
 * checks the bot token. Each person's DM lands in their own inbox and is
 * answered in that DM, never another; a burst of DMs is one run; /quiet
 * sets that person's quiet hours and no one else's; a reminder waits out
 * the quiet hours.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { startFakeSlack, type FakeSlack } from '../../examples/fakes/slack.js';
import { REPO_ROOT, ServiceHarness, waitFor, type ServeProcess } from '../fixtures/service-process.js';
import { imEvent, postToSlackApp, slashCommandForm } from '../fixtures/slack-requests.js';

const EXAMPLE = join(REPO_ROOT, 'examples/slack-assistant');
const SIGNING_SECRET = 'slack-assistant-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-slack-assistant-test-token';
const VIGIL_TOKEN = 'slack-assistant-api-token-0123456789abcdef';
/** Each person's DM with the bot. */
const DMS: Record<string, string> = { U0ALICE: 'D0ALICE', U0BOB: 'D0BOB', U0CAROL: 'D0CAROL', U0DAN: 'D0DAN', U0ERIN: 'D0ERIN' };

const harness = new ServiceHarness();
let slack: FakeSlack;
let serve: ServeProcess;
let url: string;
let store: Store;

beforeAll(async () => {
  slack = await startFakeSlack({ token: BOT_TOKEN, channels: Object.values(DMS), users: DMS });
  const dir = harness.tempDir('vigil-slack-assistant-');
  const example = JSON.parse(readFileSync(join(EXAMPLE, 'vigil.json'), 'utf8')) as { channels: { slack: Record<string, unknown> } };
  const config = harness.writeConfig(dir, {
    ...example,
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    agent: join(EXAMPLE, 'agent.ts'),
    channels: { slack: { ...example.channels.slack, apiUrl: slack.apiUrl } },
    workers: { pollIntervalMs: 200 },
  });
  serve = harness.serve(config, { SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_BOT_TOKEN: BOT_TOKEN, VIGIL_TOKEN });
  url = await serve.url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
  await slack?.close();
});

const dm = (user: string, text: string, eventId: string = randomUUID()): Promise<Response> =>
  postToSlackApp(`${url}/hooks/slack`, imEvent({ eventId, user, channel: DMS[user]!, text }), 'application/json', SIGNING_SECRET);

const quiet = (user: string, text: string): Promise<Response> =>
  postToSlackApp(`${url}/hooks/slack-commands`, slashCommandForm({ command: '/quiet', text, user, channel: DMS[user]! }), 'application/x-www-form-urlencoded', SIGNING_SECRET);

const posted = (channel: string): string[] => slack.posted.get(channel) ?? [];

/** Waits for the `n`-th message in a DM and returns it. */
const nthPost = (channel: string, n: number): Promise<string> => waitFor(`message ${n} in ${channel}`, () => posted(channel)[n - 1]);

it("a DM lands in that person's inbox and is answered in the same DM; answers never cross; a retry and the bot's own echo get none", async () => {
  expect((await dm('U0ALICE', 'hello', 'Ev-A1')).status).toBe(202);
  expect((await dm('U0BOB', 'hi there', 'Ev-B1')).status).toBe(202);
  expect(await nthPost('D0ALICE', 1)).toBe('Hi! I answer here. Try "remind me in 10m to stretch", or set your quiet hours with /quiet 22:00-07:00 Europe/Berlin.\nYou said: "hello".');
  expect(await nthPost('D0BOB', 1)).toContain('You said: "hi there".');
  // Through the bot, with its token, to each person's own DM and nowhere else.
  expect(slack.requests.map((r) => r.authorization)).toEqual([`Bearer ${BOT_TOKEN}`, `Bearer ${BOT_TOKEN}`]);
  expect([...slack.posted.keys()].sort()).toEqual(['D0ALICE', 'D0BOB']);
  expect((await store.inbox('slack-U0ALICE').events()).map((e) => e.sourceId)).toEqual(['Ev-A1']);
  expect(await store.inbox('slack-U0ALICE').settings()).toEqual({ contacts: { slack: 'D0ALICE' }, wake: { debounceMs: 1_500 } });
  expect((await store.inbox('slack-U0BOB').settings()).contacts).toEqual({ slack: 'D0BOB' });

  // Slack redelivers an event it thinks failed, with the same event_id: stored once, answered once.
  const retry = await dm('U0ALICE', 'hello', 'Ev-A1');
  expect([retry.status, await retry.json()]).toEqual([200, { stored: false, duplicate: true }]);
  // The bot's own answer comes back as a message.im event: it must never be answered (a loop).
  const echo = imEvent({ eventId: 'Ev-echo', user: 'U0BOT', channel: 'D0ALICE', text: posted('D0ALICE')[0]!, botId: 'B0BOT' });
  expect((await postToSlackApp(`${url}/hooks/slack`, echo, 'application/json', SIGNING_SECRET)).status).toBe(202);
  await serve.log("the echo's run", (line) => line.msg === 'run finished' && line.inboxId === 'slack-U0BOT' && line.outcome === 'nothing');
  // Forged, and an event that names no user (an edit): refused, nothing stored.
  expect((await postToSlackApp(`${url}/hooks/slack`, imEvent({ eventId: 'Ev-F', user: 'U0ALICE', channel: 'D0ALICE', text: 'x' }), 'application/json', 'not-the-signing-secret-0123456789abcdef')).status).toBe(401);
  const edit = JSON.stringify({ type: 'event_callback', event_id: 'Ev-E', event: { type: 'message', subtype: 'message_changed', channel: 'D0ALICE', message: { user: 'U0ALICE', text: 'x' } } });
  expect((await postToSlackApp(`${url}/hooks/slack`, edit, 'application/json', SIGNING_SECRET)).status).toBe(422);

  expect(await store.inboxes()).toEqual(['slack-U0ALICE', 'slack-U0BOB', 'slack-U0BOT']);
  expect(posted('D0ALICE')).toHaveLength(1);
  expect(posted('D0BOB')).toHaveLength(1);
});

it('three DMs in a row are one run and one answer (the debounce the first DM turned on)', async () => {
  expect((await dm('U0CAROL', 'first')).status).toBe(202);
  await nthPost('D0CAROL', 1);
  await Promise.all(['one', 'two', 'three'].map(async (text) => expect((await dm('U0CAROL', text)).status).toBe(202)));
  const answer = await nthPost('D0CAROL', 2);
  expect(answer).toMatch(/^You said 3 things: /);
  for (const text of ['"one"', '"two"', '"three"']) expect(answer).toContain(text);
  const runs = serve.logs.filter((line) => line.msg === 'run finished' && line.inboxId === 'slack-U0CAROL');
  expect(runs.map((line) => line.events)).toEqual([1, 3]);
});

it("/quiet sets that person's quiet hours and no one else's; a bad one says what is wrong and changes nothing", async () => {
  // Dan has never written to the bot: the answer goes to his user id, which Slack delivers into his DM.
  const set = await quiet('U0DAN', '22:00-7:00 Europe/Berlin');
  expect([set.status, await set.text()]).toEqual([200, '']);
  expect(await nthPost('D0DAN', 1)).toBe('Quiet hours set: 22:00-07:00 Europe/Berlin. Reminders wait until they end; my answers to you still come at once.');
  const hours = { from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' };
  expect(await store.inbox('slack-U0DAN').settings()).toEqual({ contacts: { slack: 'U0DAN' }, outbox: { quietHours: hours } });
  for (const other of ['slack-U0ALICE', 'slack-U0BOB', 'slack-U0CAROL']) expect((await store.inbox(other).settings()).outbox).toBeUndefined();

  expect((await quiet('U0DAN', '25:00-07:00 Europe/Berlin')).status).toBe(200);
  expect(await nthPost('D0DAN', 2)).toMatch(/^That did not work: settings outbox\.quietHours\.from must be a time of day/);
  expect((await quiet('U0DAN', '22:00-07:00 Mars/Olympus')).status).toBe(200);
  expect(await nthPost('D0DAN', 3)).toMatch(/^That did not work: settings outbox\.quietHours\.timeZone must be an IANA time zone/);
  expect((await quiet('U0DAN', '')).status).toBe(200);
  expect(await nthPost('D0DAN', 4)).toBe('Your quiet hours are 22:00-07:00 Europe/Berlin.');
  // An operator sees the same through the API.
  const api = await fetch(`${url}/inboxes/slack-U0DAN/settings`, { headers: { authorization: `Bearer ${VIGIL_TOKEN}` } });
  expect((await api.json()) as unknown).toEqual({ contacts: { slack: 'U0DAN' }, outbox: { quietHours: hours } });
});

it('a reminder waits out the quiet hours; the answers to the person do not', async () => {
  const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);
  expect((await quiet('U0ERIN', `${hhmm(Date.now() - 3_600_000)}-${hhmm(Date.now() + 3_600_000)} UTC`)).status).toBe(200);
  expect(await nthPost('D0ERIN', 1)).toMatch(/^Quiet hours set: /);
  expect((await dm('U0ERIN', 'remind me in 1s to stretch')).status).toBe(202);
  expect(await nthPost('D0ERIN', 2)).toContain("OK: in 1s I'll remind you to stretch.");
  // Held by the quiet hours, not merely not sent yet: the dispatcher looked and put it off until they end.
  await waitFor('the reminder, held until the quiet hours end', async () => {
    const outbox = await store.view('slack-U0ERIN').outbox();
    return outbox.heldCount === 1 && outbox.nextSendAt !== null && outbox.nextSendAt > Date.now() + 30 * 60_000;
  });
  expect(posted('D0ERIN').join('\n')).not.toContain('Reminder: ');

  expect((await quiet('U0ERIN', 'off')).status).toBe(200);
  await waitFor('the reminder, sent', () => posted('D0ERIN').join('\n').includes('Reminder: stretch'));
  expect(posted('D0ERIN').join('\n')).toContain('Quiet hours off: reminders come at any time.');
});
