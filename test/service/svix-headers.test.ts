/**
 * Svix as the README configures it (`"svix": { "type": "standard-webhooks",
 * "secret": "env:SVIX_SECRET" }`), against a real `vigil serve` on
 * 127.0.0.1. Svix sends `svix-id`, `svix-timestamp` and `svix-signature`
 * unless an account renames them to `webhook-*`; both must be accepted.
 *
 * Signed with the `standardwebhooks` library (not our code), the scheme
 * the `svix` library signs with, under Svix's default header names. The
 * `svix` package itself declares Node 22+ and Vigil is tested on Node 20
 * too, so the test does not depend on it; its verifier reads `svix-*`
 * first, then `webhook-*`, as Vigil now does.
 */
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';

const SVIX_SECRET = 'whsec_' + Buffer.from('svix-default-header-test-secret!').toString('base64');

const harness = new ServiceHarness();
let url: string;
let store: Store;

beforeAll(async () => {
  const dir = harness.tempDir();
  const config = harness.writeConfig(dir, {
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    token: 'svix-headers-test-token-0123456789abcdef',
    sources: { svix: { type: 'standard-webhooks', secret: 'env:SVIX_SECRET' } },
    workers: { pollIntervalMs: 200 },
  });
  url = await harness.serve(config, { SVIX_SECRET }).url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

/** A delivery as Svix sends it: the three headers under `prefix` (`svix` by default). */
function svixDelivery(id: string, body: string, prefix = 'svix', at = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
    [`${prefix}-signature`]: new Webhook(SVIX_SECRET).sign(id, at, body),
  };
}

async function post(headers: Record<string, string>, body: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}/hooks/alice/svix`, { method: 'POST', headers, body });
  return { status: response.status, json: await response.json() };
}

describe('Svix deliveries through vigil serve', () => {
  it('svix-id/-timestamp/-signature (Svix\'s default names): 202, stored under svix-id; the redelivery is a duplicate', async () => {
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_1' } });
    const headers = svixDelivery('msg_svix_1', body);
    expect(await post(headers, body)).toEqual({ status: 202, json: { stored: true } });
    expect((await store.inbox('alice').getEvent('svix', 'msg_svix_1'))?.payload).toEqual(JSON.parse(body));
    expect((await post(headers, body)).status).toBe(200);
  });

  it('webhook-* (the renamed headers) still work; a forged svix-signature is 401 and stores nothing', async () => {
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_2' } });
    expect(await post(svixDelivery('msg_std_2', body, 'webhook'), body)).toEqual({ status: 202, json: { stored: true } });
    const forged = { ...svixDelivery('msg_svix_3', body), 'svix-signature': 'v1,' + Buffer.alloc(32).toString('base64') };
    const refused = await post(forged, body);
    expect([refused.status, (refused.json as { error: { code: string } }).error.code]).toEqual([401, 'bad_signature']);
    expect(await store.inbox('alice').getEvent('svix', 'msg_svix_3')).toBeNull();
  });

  it('a webhook-id beside a signed svix-id that says another id is refused: the dedupe key is always the signed one', async () => {
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_4' } });
    const refused = await post({ ...svixDelivery('msg_svix_4', body), 'webhook-id': 'msg_replayed_4' }, body);
    expect([refused.status, (refused.json as { error: { code: string } }).error.code]).toEqual([401, 'bad_signature']);
    expect(await store.inbox('alice').getEvent('svix', 'msg_svix_4')).toBeNull();
    expect(await store.inbox('alice').getEvent('svix', 'msg_replayed_4')).toBeNull();
  });
});
