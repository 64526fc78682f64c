/**
 * examples/stripe-refunds against a local fake of Stripe's API: a real
 * `vigil proxy` holding the secret key, a real `vigil serve` running the
 * example's agent with the example's configs (ports, paths, publicUrl and
 * the upstream's URL changed for the test). Webhooks are signed with the
 * `stripe` package's own helper. A Radar review asks with a one-tap link;
 * yes refunds once, even when Stripe's first answer is lost; a second tap
 * changes nothing; no refunds nothing; a forged webhook is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterEach, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../../examples/fakes/stripe.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const EXAMPLE = join(REPO_ROOT, 'examples/stripe-refunds');
const API_KEY = 'sk_test_only_the_proxy_holds_this';
const WEBHOOK_SECRET = 'whsec_stripe_refunds_example_test_0123456789';
const TOKEN = 'stripe-refunds-test-token-0123456789';
const ENV = { STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, VIGIL_TOKEN: TOKEN, VIGIL_LINK_SECRET: 'stripe-refunds-test-link-secret-0123456789' };

const harness = new ServiceHarness();
let stripe: FakeStripe | undefined;
afterEach(async () => {
  await harness.cleanup();
  await stripe?.close();
});

const example = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(EXAMPLE, file), 'utf8')) as Record<string, unknown>;

async function start() {
  const fake = (stripe = await startFakeStripe(API_KEY, [
    { id: 'ch_1', amount: 4200, currency: 'usd' },
    { id: 'ch_2', amount: 1999, currency: 'eur' },
  ]));
  const dir = harness.tempDir('vigil-stripe-refunds-');
  const proxyConfig = example('proxy.json') as { upstreams: { stripe: Record<string, unknown> } };
  proxyConfig.upstreams.stripe.url = fake.url;
  const proxy = harness.start(['proxy', '--config', harness.writeConfig(dir, proxyConfig, 'proxy.json'), '--port', '0'], { env: { STRIPE_AUTH: `Bearer ${API_KEY}` } });
  const proxyUrl = (await proxy.log('proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;
  // publicUrl names the deployment's address; here the links must point at the test's server.
  const { publicUrl: _publicUrl, ...config } = example('vigil.json');
  const serve = harness.serve(
    harness.writeConfig(dir, {
      ...config,
      store: `sqlite:${join(dir, 'data')}`,
      port: 0,
      agent: join(EXAMPLE, 'agent.ts'),
      proxy: { url: proxyUrl },
      engine: { outboxGapMs: 0, retryBackoff: { baseMs: 100, maxMs: 100 } },
      workers: { pollIntervalMs: 200 },
    }),
    ENV,
  );
  const url = await serve.url();
  const deliver = (event: Record<string, unknown>, secret = WEBHOOK_SECRET): Promise<Response> => {
    const body = JSON.stringify(event);
    return fetch(`${url}/hooks/ops/stripe`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret }) },
    });
  };
  const said = (pattern: RegExp) => waitFor(`a message matching ${pattern}`, () => pattern.exec(serve.printed)?.[0]);
  return { url, serve, proxy, fake, deliver, said };
}

const review = (id: string, charge: string) => ({ id, object: 'event', type: 'review.opened', data: { object: { id: `prv_${charge}`, object: 'review', charge, reason: 'rule' } } });
const form = (answer: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `answer=${answer}` });

it('a Radar review asks; the link answered yes refunds once, even when the first answer is lost', async () => {
  const { url, serve, proxy, fake, deliver, said } = await start();
  expect((await deliver(review('evt_1', 'ch_1'))).status).toBe(202);
  const ask = await said(/URGENT: Radar flagged \$42\.00 \(ch_1\) for review: rule\. Refund it\? \S+/);
  const link = /(http:\/\/\S+)$/.exec(ask)![1]!;
  expect(link.startsWith(`${url}/a/ops/refund-ch_1?`)).toBe(true);
  expect(fake.refunds).toEqual([]);

  // The page says what it asks; the tap says yes. Stripe refunds, then the answer is lost: the run is retried with the same key.
  expect(await (await fetch(link)).text()).toContain('Refund $42.00 of ch_1');
  fake.loseNextRefundAnswer();
  expect((await fetch(link, form('yes'))).status).toBe(200);
  await said(/Refunded \$42\.00 of ch_1 \(re_1\)\./);
  const attempts = fake.requests.filter((r) => r.path === '/v1/refunds');
  expect(attempts).toHaveLength(2);
  expect(new Set(attempts.map((r) => r.idempotencyKey)).size).toBe(1);
  expect(fake.refunds.map((r) => [r.id, r.charge, r.amount, r.metadata.approval])).toEqual([['re_1', 'ch_1', 4200, 'refund-ch_1']]);
  // Every call carried the key the proxy holds; neither process printed it.
  expect(fake.requests.every((r) => r.authorization === `Bearer ${API_KEY}`)).toBe(true);
  expect(serve.stdout + serve.stderr + proxy.stdout + proxy.stderr).not.toContain(API_KEY);

  // A second tap, and a redelivered review, change nothing. Stripe's confirmation is reported.
  expect((await fetch(link, form('no'))).status).toBe(200);
  const again = await deliver(review('evt_1', 'ch_1'));
  expect([again.status, await again.json()]).toEqual([200, { stored: false, duplicate: true }]);
  await deliver({ id: 'evt_2', object: 'event', type: 'charge.refunded', data: { object: { id: 'ch_1', object: 'charge', amount_refunded: 4200, currency: 'usd' } } });
  await said(/Stripe confirms: ch_1 refunded \(\$42\.00\)\./);
  expect(fake.refunds).toHaveLength(1);
  expect(serve.printed.split('Refunded $42.00').length - 1).toBe(1);
});

it('answered no through the API, nothing is refunded; a forged webhook is refused and stores nothing', async () => {
  const { url, serve, fake, deliver, said } = await start();
  expect((await deliver(review('evt_3', 'ch_2'), 'whsec_not_the_secret')).status).toBe(401);
  expect((await deliver(review('evt_4', 'ch_2'))).status).toBe(202);
  await said(/URGENT: Radar flagged €19\.99 \(ch_2\)/);
  const answer = await fetch(`${url}/inboxes/ops/approvals/refund-ch_2`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ answer: 'no' }),
  });
  expect(await answer.json()).toEqual({ outcome: 'no' });
  await said(/Left ch_2 alone: you said no\./);
  expect(fake.refunds).toEqual([]);
  expect(serve.stdout).not.toContain('evt_3');
});
