/**
 * An inbox's settings and failed messages in a real browser: Debian's
 * Chromium (playwright-core) against a real `vigil serve` whose Slack
 * channel posts as a bot to a local fake of the Slack Web API. A reply for
 * an inbox with no Slack contact is undeliverable; the operator sees it,
 * sets the contact in the settings form, redrives Slack, and the message
 * reaches that person's DM. A value that is not valid is named, and
 * nothing changes.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { startFakeSlack, type FakeSlack } from '../../examples/fakes/slack.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { CHROMIUM_PATH, requires } from '../support/requires.js';
import { signedInPage } from './browser-sign-in.js';

const TOKEN = 'dashboard-settings-token-0123456789ab';
const BOT_TOKEN = 'xoxb-dashboard-settings-test-token';
const hasChromium = requires('chromium');

const harness = new ServiceHarness();
let browser: Browser;
let slack: FakeSlack;
let url: string;
let store: Store;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
  slack = await startFakeSlack({ token: BOT_TOKEN, channels: ['D0HANA'] });
  const dir = harness.tempDir('vigil-dashboard-settings-');
  const markers = join(dir, 'markers');
  mkdirSync(markers);
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/dashboard-agent.ts'),
    channels: { slack: { botToken: BOT_TOKEN, apiUrl: slack.apiUrl } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  url = await harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers }).url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await store?.close();
  await browser?.close();
  await slack?.close();
  await harness.cleanup();
});

async function send(inbox: string, key: string, text: string): Promise<void> {
  const response = await fetch(`${url}/inboxes/${inbox}/messages`, {
    method: 'POST',
    body: JSON.stringify({ text }),
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key, 'content-type': 'application/json' },
  });
  expect(response.status).toBe(202);
}

describe("an inbox's settings in Chromium", () => {
  it('a reply with no Slack contact is undeliverable; the operator sets the contact, redrives, and the reply reaches the DM', async () => {
    await send('hana', 'h-1', 'hello');
    await waitFor('the reply to be undeliverable', async () => (await store.inbox('hana').stats()).outbox.undeliverable === 1);
    expect(slack.posted.size).toBe(0);

    const page = await signedInPage(browser, contexts, url, TOKEN, '/inbox/hana');
    const outbox = page.locator('#outbox');
    expect(await outbox.textContent()).toContain('has no contacts.slack');
    expect(await page.locator('#inbox-head').textContent()).toContain('1 undeliverable');

    const settings = page.locator('#settings');
    await settings.locator('summary', { hasText: 'Edit settings' }).click();
    await settings.getByLabel('New contact: channel').fill('slack');
    await settings.getByLabel('New contact: address').fill('D0HANA');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Saved:');
    expect(await store.inbox('hana').settings()).toEqual({ contacts: { slack: 'D0HANA' } });
    expect(await settings.textContent()).toContain('slack: D0HANA');

    await outbox.locator('summary', { hasText: 'Redrive slack' }).click();
    await outbox.getByRole('button', { name: 'Yes, redrive slack' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Redriven: 1 message is held again');
    await waitFor('the reply in the DM', () => slack.posted.get('D0HANA')?.length === 1);
    expect(slack.posted.get('D0HANA')).toEqual(['handled h-1']);
    await expect.poll(() => outbox.textContent(), { timeout: 15_000 }).not.toContain('Not delivered');
    expect((await store.view('hana').actions()).map((a) => a.action)).toEqual(['redrive outbox', 'change settings']);
  });

  it('a time zone that does not exist is named in the notice, and nothing changes', async () => {
    await send('ivan', 'i-1', 'hello');
    await waitFor('the reply', async () => (await store.inbox('ivan').stats()).outbox.undeliverable === 1);
    await store.inbox('ivan').updateSettings({ wake: { debounceMs: 1_000 } });
    const page = await signedInPage(browser, contexts, url, TOKEN, '/inbox/ivan');
    const settings = page.locator('#settings');
    await settings.locator('summary', { hasText: 'Edit settings' }).click();
    await settings.getByLabel('Quiet from (HH:MM)').fill('22:00');
    await settings.getByLabel('Quiet until (HH:MM)').fill('07:00');
    await settings.getByLabel('Time zone (IANA)', { exact: true }).fill('Mars/Olympus');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(/notice=settings-invalid/);
    expect(await page.locator('#notice').textContent()).toContain('Not saved: outbox.quietHours.timeZone must be an IANA time zone, such as Europe/Berlin. Nothing changed.');
    expect(await store.inbox('ivan').settings()).toEqual({ wake: { debounceMs: 1_000 } });
  });
});
