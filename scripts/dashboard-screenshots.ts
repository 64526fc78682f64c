/**
 * Takes the README's dashboard screenshots: seeds a throwaway SQLite store
 * with a day of made-up activity on a fake clock (a dead event, a stuck
 * inbox, approvals, a paced outbox, timers), serves the real dashboard on
 * 127.0.0.1 and photographs it in headless Chromium.
 *
 *   npx tsx scripts/dashboard-screenshots.ts [--out docs/images]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { createFakeClock } from '../src/clock.js';
import { parseConfig } from '../src/config/load-config.js';
import { createServiceApp, httpDepsOf } from '../src/service/service.js';
import { startHttpServer } from '../src/http/server.js';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { RuntimeEvents } from '../src/events.js';
import { openStore, type Inbox } from '../src/index.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/images' } } });
const TOKEN = 'screenshot-token-0123456789abcdef0123';
const HOUR = 3_600_000;
const END = Date.UTC(2026, 10, 30, 16, 0, 0);

const dir = mkdtempSync(join(tmpdir(), 'vigil-screens-'));
const clock = createFakeClock(END - 24 * HOUR);
const store = await openStore(`sqlite:${dir}`, { clock: clock.now, outboxGapMs: 30 * 60_000, maxAttempts: 3 });

/** One worker turn: claim what is there and finish it with `outcome`. */
async function turn(inbox: Inbox, holder: string, outcome: Parameters<Inbox['finish']>[3]): Promise<void> {
  const gen = (await inbox.acquire(holder)) as number;
  const batch = await inbox.claimBatch(holder, gen);
  if (batch.length > 0) await inbox.finish(holder, gen, batch.map((e) => e.id), outcome);
  await inbox.release(holder, gen);
}

const users = ['acme-support', 'billing-bot', 'dana', 'eu-ops', 'frontdesk', 'github-triage', 'helpdesk-42', 'ivan', 'jobs-digest', 'kim'];
for (let hour = 0; hour < 24; hour++) {
  for (const [i, user] of users.entries()) {
    const inbox = store.inbox(user);
    const count = (hour * 7 + i * 3) % 5;
    for (let n = 0; n < count; n++) {
      await inbox.ingest({ source: n % 2 === 0 ? 'github' : 'chat', sourceId: `${user}-${hour}-${n}`, payload: { text: `message ${n} at hour ${hour}` } });
    }
    if (count > 0) await turn(inbox, `worker-${(i % 3) + 1}`, { messages: [`Replied to ${count} ${count === 1 ? 'message' : 'messages'}.`] });
    await store.inbox(user).dispatch(() => undefined);
  }
  clock.advance(HOUR);
}

// billing-bot: a poison event, dead after three attempts.
const billing = store.inbox('billing-bot');
await billing.ingest({ source: 'stripe', sourceId: 'evt_3Q9xPoison', payload: { type: 'charge.refunded', amount: 4200, note: '<script>alert("hi")</script> is shown as text' } });
for (let attempt = 0; attempt < 3; attempt++) {
  clock.advance(60_000);
  await turn(billing, 'worker-2', { error: 'TypeError: cannot read properties of undefined (reading "customer")' });
}
clock.advance(60_000);
await turn(billing, 'worker-2', {});

// dana: waiting for a person.
const dana = store.inbox('dana');
await dana.ingest({ source: 'chat', sourceId: 'm-991', payload: { text: 'Please refund my last order' } });
await turn(dana, 'worker-1', {
  messages: [{ body: 'May I refund order #1182 (EUR 39.90)? Tap to approve.', urgent: true }],
  approvals: [{ id: 'refund-1182', expiresInMs: 4 * HOUR, action: { tool: 'refund', order: 1182, amount: '39.90 EUR' } }],
  session: { turns: 4, summary: 'Customer asked for a refund of order #1182.' },
  memory: { set: { name: 'Dana', language: 'de', tier: 'gold' } },
});
await dana.addTimer({ id: 'daily-digest', cron: '0 8 * * *', tz: 'Europe/Berlin' });
await dana.addTimer({ id: 'follow-up', due: clock.now() + 2 * HOUR });
await dana.dispatch(() => undefined);
await turn(dana, 'worker-1', {});

// eu-ops: work waiting with nobody running it (its worker died holding the lease).
const ops = store.inbox('eu-ops');
await ops.ingestMany([1, 2, 3].map((n) => ({ source: 'github', sourceId: `push-${n}`, payload: { ref: 'refs/heads/main' } })));
await ops.acquire('worker-3');
clock.advance(5 * 60_000);

// frontdesk: replies held by the pacing gap.
const front = store.inbox('frontdesk');
await front.ingest({ source: 'chat', sourceId: 'm-1', payload: { text: 'hello?' } });
await turn(front, 'worker-2', { messages: ['Hi! Looking into it.'] });
await front.dispatch(() => undefined);
await front.ingest({ source: 'chat', sourceId: 'm-2', payload: { text: 'any news?' } });
await turn(front, 'worker-2', { messages: ['Still on it, one moment.'] });

const app = createServiceApp({
  ...httpDepsOf(parseConfig({ token: TOKEN }, 'screenshot config', {})),
  store,
  metrics: createMetrics({ defaultMetrics: false }),
  logger: createLogger({ level: 'silent' }),
  events: new RuntimeEvents(),
  publicUrl: 'http://127.0.0.1',
  now: clock.now,
});
const server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1 });
  await page.goto(`${server.url}/login`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/`);
  await page.screenshot({ path: join(values.out, 'dashboard-overview.png'), fullPage: true });
  await page.goto(`${server.url}/inbox/billing-bot`);
  await page.locator('#events-table details').first().click();
  await page.screenshot({ path: join(values.out, 'dashboard-inbox.png') });
  await page.goto(`${server.url}/inbox/dana`);
  await page.locator('#approvals summary', { hasText: 'Answer' }).click();
  await page.screenshot({ path: join(values.out, 'dashboard-approval.png') });
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  await phone.context().addCookies(await page.context().cookies());
  await phone.goto(`${server.url}/`);
  await phone.screenshot({ path: join(values.out, 'dashboard-phone.png') });
  console.log(`screenshots written to ${values.out}`);
} finally {
  await browser.close();
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
