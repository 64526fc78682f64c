/**
 * Sign-in `next` in a real browser: Debian's Chromium (headless, through
 * playwright-core) against a real `vigil serve` on 127.0.0.1. For each
 * off-site trick in sign-in-next-cases.ts the operator signs in, both from
 * /login?next=… (the form the server renders) and with the raw value
 * posted in the form's field, and Chromium ends on this service's
 * dashboard root, having asked no other host for anything (requests to
 * any other origin are recorded and answered by the test).
 *
 * What this shows beyond sign-in-next.test.ts (which reads the Location
 * itself): the rendered form already carried a re-parsed value, and the
 * page's CSP `form-action 'self'` makes Chromium refuse to follow a form's
 * redirect to another host. Before the fix, a raw `/.//evil.example` did
 * not reach evil.example in Chromium; the sign-in ended on an aborted
 * navigation, stuck on /login. Now every case lands on the dashboard.
 */
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceHarness } from '../fixtures/service-process.js';
import { CHROMIUM_PATH, requires } from '../support/requires.js';
import { KEPT_NEXT, OFF_SITE_NEXT } from './sign-in-next-cases.js';

const TOKEN = 'browser-sign-in-next-token-0123456789';
// Without Chromium each test is skipped saying so (failed under CI), and nothing below starts.
const hasChromium = requires('chromium');

const harness = new ServiceHarness();
let browser: Browser;
let url: string;
let origin: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
  const dir = harness.tempDir('vigil-browser-next-');
  url = await harness.serve(harness.writeConfig(dir, { store: `sqlite:${join(dir, 'data')}`, port: 0, token: TOKEN })).url();
  origin = new URL(url).origin;
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await browser?.close();
  await harness.cleanup();
});

/** A browser whose requests off this service are recorded and answered with a marker page. */
async function freshPage(): Promise<{ page: Page; offSite: string[] }> {
  const context = await browser.newContext();
  contexts.push(context);
  const offSite: string[] = [];
  await context.route(
    (target) => target.origin !== origin,
    (route) => {
      offSite.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<title>off-site</title>' });
    },
  );
  return { page: await context.newPage(), offSite };
}

/** Signs in from /login?next=…; with `raw`, the form's field is first set to `next` as typed, bypassing the server's rendering. */
async function signIn({ page, offSite }: { page: Page; offSite: string[] }, next: string, raw: boolean): Promise<{ landed: URL; offSite: string[]; error: string | null }> {
  offSite.length = 0;
  await page.goto(`${url}/login?next=${encodeURIComponent(next)}`);
  if (raw) await page.locator('input[name="next"]').evaluate((input, value) => ((input as { value: string }).value = value), next);
  await page.getByLabel('API token').fill(TOKEN);
  // A failed navigation is an outcome to report, with the hosts asked, not an exception that hides them.
  const [navigated] = await Promise.all([
    page.waitForURL((target) => target.pathname !== '/login').then(
      () => null,
      (error: Error) => error.message.split('\n', 1)[0] ?? error.message,
    ),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return { landed: new URL(page.url()), offSite: [...offSite], error: navigated };
}

describe('sign-in next in Chromium', () => {
  // One browser signs in again and again (a sign-in page is served to a signed-in browser too): Chromium is slow to start a context.
  it('every off-site trick ends on the dashboard root of this service, whether rendered by the server or posted raw', { timeout: 180_000 }, async () => {
    const browsing = await freshPage();
    for (const next of OFF_SITE_NEXT) {
      for (const raw of [false, true]) {
        const { landed, offSite, error } = await signIn(browsing, next, raw);
        expect({ next, raw, origin: landed.origin, path: landed.pathname, offSite, error }).toEqual({ next, raw, origin, path: '/', offSite: [], error: null });
      }
    }
  });

  it('an honest next is followed to its page on this service', { timeout: 60_000 }, async () => {
    const browsing = await freshPage();
    for (const [next, location] of KEPT_NEXT.filter(([, location]) => location.startsWith('/inbox/'))) {
      const { landed, offSite, error } = await signIn(browsing, next, true);
      expect({ next, at: landed.origin + landed.pathname + landed.search + landed.hash, offSite, error }).toEqual({ next, at: origin + location, offSite: [], error: null });
    }
  });
});
