/**
 * The dashboard in a real browser: Debian's Chromium (headless, through
 * playwright-core) against a real `vigil serve` child on 127.0.0.1, with
 * the agent in test/fixtures/dashboard-agent.ts. An operator signs in, finds
 * a dead event, redrives it and sees it done; answers an approval and sees
 * the agent's follow-up arrive without reloading; taps an approval too late
 * and is told it expired; and reads a payload with <script> in it as text.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { CHROMIUM_PATH, requires } from '../support/requires.js';
import { signedInPage } from './browser-sign-in.js';

const TOKEN = 'dashboard-browser-token-0123456789ab';
// Without Chromium each test is skipped saying so (failed under CI), and nothing below starts.
const hasChromium = requires('chromium');

const harness = new ServiceHarness();
let browser: Browser;
let url: string;
let markers: string;
let store: Store;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
  const dir = harness.tempDir('vigil-dashboard-');
  markers = join(dir, 'markers');
  mkdirSync(markers);
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/dashboard-agent.ts'),
    // Two quick attempts make the flaky event dead soon; no pacing between replies.
    engine: { maxAttempts: 2, retryBackoff: { baseMs: 50, maxMs: 50 }, outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
  url = await serve.url();
  // The test reads the same files the service writes (SQLite allows many processes).
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await store?.close();
  await browser?.close();
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

/** A signed-in page, at `path` (the login form sends you back there). */
function signedIn(path: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  return signedInPage(browser, contexts, url, TOKEN, path, options);
}

describe('the dashboard in Chromium', () => {
  it('signs in, sees a dead event, redrives it and sees it done', async () => {
    await send('carol', 'flaky-1', 'flaky');
    await waitFor('the flaky event to go dead', async () => (await store.inbox('carol').getEvent('chat', 'flaky-1'))?.status === 'dead');

    const overview = await signedIn('/');
    const row = overview.getByRole('row', { name: /carol/ });
    await expect.poll(() => row.textContent()).toContain('dead events');
    await overview.getByRole('link', { name: 'carol' }).click();
    await overview.waitForURL(`${url}/inbox/carol`);

    const events = overview.locator('#events-table');
    await expect.poll(() => events.textContent()).toContain('payments API down');
    expect(await events.locator('.badge.dead').count()).toBe(1);

    writeFileSync(join(markers, 'fixed'), ''); // the outage is over
    await overview.getByText('Redrive', { exact: true }).click();
    await overview.getByRole('button', { name: 'Yes, redrive' }).click();
    await expect.poll(() => overview.locator('#notice').textContent()).toContain('is pending again');

    // Live: the page is not reloaded; the run's result arrives by itself.
    await overview.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
    await expect.poll(() => events.locator('.badge.done').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => overview.locator('#outbox').textContent(), { timeout: 15_000 }).toContain('handled flaky-1');
    expect(await overview.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(1);
    expect((await store.view('carol').actions())[0]).toMatchObject({ action: 'redrive', result: 'pending again' });
  });

  it('answers an approval and sees the agent follow up, without reloading', async () => {
    await send('dave', 'r-1', 'refund 25');
    await waitFor('the approval to be asked', async () => (await store.view('dave').approvals()).length === 1);

    const page = await signedIn('/inbox/dave');
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
    const approvals = page.locator('#approvals');
    expect(await approvals.textContent()).toContain('refund-r-1');
    await approvals.locator('summary', { hasText: 'Answer' }).click();
    await approvals.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Approved refund-r-1');

    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 2));
    await expect.poll(() => page.locator('#outbox').textContent(), { timeout: 15_000 }).toContain('Refund refund-r-1 sent.');
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(2);
    await expect.poll(() => approvals.locator('.badge.yes').count()).toBe(1);
  });

  it('a late tap on a page left open says "expired" and approves nothing', async () => {
    await send('erin', 'r-2', 'refund 40 5000');
    const [approval] = await waitFor('the approval to be asked', async () => {
      const rows = await store.view('erin').approvals();
      return rows.length === 1 ? rows : undefined;
    });
    // A tab left open on a phone: no script, so nothing refreshes the stale buttons.
    const page = await signedIn('/inbox/erin', { javaScriptEnabled: false });
    await page.locator('#approvals').locator('summary', { hasText: 'Answer' }).click();
    const approve = page.locator('#approvals').getByRole('button', { name: 'Approve' });
    expect(await approve.count()).toBe(1);
    await waitFor('the approval to expire', () => Date.now() > approval!.expiresAt + 50);
    await approve.click();
    await page.waitForURL(/notice=approval-expired/);
    expect(await page.locator('#notice').textContent()).toContain('Expired: approval refund-r-2 ran out of time');
    expect(await store.inbox('erin').answerApproval('refund-r-2', 'yes')).toBe('expired');
  });

  it('shows a payload with <script> in it as text and runs none of it', async () => {
    const evil = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
    await send('frank', 'x-1', evil);
    await waitFor('the event to be handled', async () => (await store.inbox('frank').getEvent('chat', 'x-1'))?.status === 'done');
    const page = await signedIn('/inbox/frank');
    await page.locator('#events-table').getByText('Payload').click();
    await expect.poll(() => page.locator('#events-table pre.payload').textContent()).toContain(evil.replace(/"/g, '\\"'));
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('#events-table img').count()).toBe(0);
  });

  it('an unknown inbox and an invalid id get a clear page', async () => {
    const page = await signedIn('/');
    const unknown = await page.goto(`${url}/inbox/nobody-here`);
    expect(unknown?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
    const invalid = await page.goto(`${url}/inbox/${encodeURIComponent('no/slashes')}`);
    expect(invalid?.status()).toBe(400);
    expect(await page.locator('.notice.error').textContent()).toContain('inbox id');
  });

  it('works from the keyboard, and every field has a label and every button a name', async () => {
    await send('gina', 'flaky-2', 'flaky-but-not-quite');
    await waitFor('the event to be handled', async () => (await store.inbox('gina').getEvent('chat', 'flaky-2'))?.status === 'done');
    const page = await signedIn('/');
    const unnamed = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ id: string; labels?: ArrayLike<unknown> | null; textContent: string | null; getAttribute(n: string): string | null }> } }).document;
      const fields = Array.from(doc.querySelectorAll('input:not([type=hidden]), select, textarea')).filter((f) => (f.labels?.length ?? 0) === 0 && f.getAttribute('aria-label') === null);
      const buttons = Array.from(doc.querySelectorAll('button')).filter((b) => (b.textContent ?? '').trim() === '' && b.getAttribute('aria-label') === null);
      return { fields: fields.map((f) => f.id), buttons: buttons.length };
    });
    expect(unnamed).toEqual({ fields: [], buttons: 0 });
    // Search by keyboard alone: focus the field, type, press Enter.
    await page.getByLabel('Search inboxes').focus();
    await page.keyboard.type('gin');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=gin/);
    expect(await page.getByRole('link', { name: 'gina' }).count()).toBe(1);
    // Skip link first in the tab order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent)).toBe('Skip to content');
  });
});
