/**
 * The same promises for every provider (one suite, run per provider): a
 * signed delivery is stored once and acked 202, its redelivery is 200
 * duplicate, and every forged, stale, unsigned or keyless delivery is
 * refused before anything is stored.
 */
import { describe, expect, it } from 'vitest';
import { counterValue, errorOf, eventCount, expectNothingStored, T0, useHttpApps, type TestApp } from './http-harness.js';
import { PROVIDERS, type Provider } from './providers.js';

const post = (t: TestApp, source: string, body: string, headers: Record<string, string>, inbox = 'alice') =>
  t.request(`/hooks/${inbox}/${source}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe.each(PROVIDERS.map((p) => [p.source, p] as const))('webhooks: %s', (_name, provider: Provider) => {
  const apps = useHttpApps();

  async function signed(id: string, options: { nowMs?: number; secret?: string } = {}) {
    const body = JSON.stringify(provider.payload(id));
    const headers = await provider.sign(body, { id, secret: options.secret ?? provider.secret, nowMs: options.nowMs ?? T0 });
    return { body, headers };
  }

  it('a signed delivery is stored under (source, key) with its parsed body, acked 202 {"stored":true}', async () => {
    const t = await apps.make();
    const heard = t.events.next('event:ingested');
    const { body, headers } = await signed('d-1');
    const res = await post(t, provider.source, body, headers);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ stored: true });
    const event = await t.store.inbox('alice').getEvent(provider.source, 'd-1');
    expect(event?.payload).toEqual(JSON.parse(body));
    expect(event?.status).toBe('pending');
    expect(await heard).toEqual({ inboxId: 'alice', source: provider.source, sourceId: 'd-1', stored: true });
    expect(await counterValue(t.metrics, 'ingested', { source: provider.source })).toBe(1);
  });

  it('a redelivery is 200 {"stored":false,"duplicate":true} and stores nothing more', async () => {
    const t = await apps.make();
    const first = await signed('d-1');
    expect((await post(t, provider.source, first.body, first.headers)).status).toBe(202);
    // The provider retries later with a fresh signature over the same delivery.
    t.clock.advance(60_000);
    const again = await signed('d-1', { nowMs: T0 + 60_000 });
    const res = await post(t, provider.source, again.body, again.headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ stored: false, duplicate: true });
    expect(await eventCount(t.store, 'alice')).toBe(1);
    expect(await counterValue(t.metrics, 'duplicates', { source: provider.source })).toBe(1);
  });

  it('a body changed after signing is 401 bad_signature, nothing stored', async () => {
    const t = await apps.make();
    const { body, headers } = await signed('d-1');
    const res = await post(t, provider.source, body.replace('}', ',"extra":1}'), headers);
    expect(await errorOf(res)).toMatchObject({ status: 401, code: 'bad_signature' });
    await expectNothingStored(t.store);
    expect(await counterValue(t.metrics, 'rejectedSignatures', { source: provider.source, reason: 'bad_signature' })).toBe(1);
  });

  it('a delivery signed with another secret is 401 bad_signature, nothing stored', async () => {
    const t = await apps.make();
    const { body, headers } = await signed('d-1', { secret: provider.wrongSecret });
    expect(await errorOf(await post(t, provider.source, body, headers))).toMatchObject({ status: 401, code: 'bad_signature' });
    await expectNothingStored(t.store);
  });

  it.each(provider.signatureHeaders)('without the %s header it is 401 missing_signature, nothing stored', async (header) => {
    const t = await apps.make();
    const { body, headers } = await signed('d-1');
    delete headers[header];
    expect(await errorOf(await post(t, provider.source, body, headers))).toMatchObject({ status: 401, code: 'missing_signature' });
    await expectNothingStored(t.store);
  });

  it('a malformed signature header is 401 bad_signature, nothing stored', async () => {
    const t = await apps.make();
    const { body, headers } = await signed('d-1');
    const header = provider.signatureHeaders.find((h) => /signature/.test(h)) as string;
    for (const garbage of ['sha256=zz', 'v1=', 'v0=' + 'g'.repeat(64), 't=,v1=', 'v1,', 'x'.repeat(300)]) {
      expect(await errorOf(await post(t, provider.source, body, { ...headers, [header]: garbage }))).toMatchObject({ status: 401, code: 'bad_signature' });
    }
    await expectNothingStored(t.store);
  });

  it('a signed body that is not JSON is 400 bad_json, nothing stored', async () => {
    const t = await apps.make();
    const body = 'this is not json';
    const headers = await provider.sign(body, { id: 'd-1', secret: provider.secret, nowMs: T0 });
    expect(await errorOf(await post(t, provider.source, body, headers))).toMatchObject({ status: 400, code: 'bad_json' });
    await expectNothingStored(t.store);
  });

  it('a signed delivery without its unique id is 400 missing_key, nothing stored', async () => {
    const t = await apps.make();
    const delivery = await provider.withoutKey(T0);
    if (delivery === null) {
      // The key is one of the signed headers: its absence was covered as missing_signature above.
      expect(provider.signatureHeaders.length).toBeGreaterThan(1);
      return;
    }
    const res = await post(t, provider.source, delivery.body, delivery.headers);
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'missing_key' });
    await expectNothingStored(t.store);
  });

  if (provider.timestamped) {
    it('signed 301 s ago (tolerance 300 s) is 401 stale_timestamp, nothing stored; 300 s ago is accepted', async () => {
      const t = await apps.make();
      const old = await signed('d-1', { nowMs: T0 - 301_000 });
      expect(await errorOf(await post(t, provider.source, old.body, old.headers))).toMatchObject({ status: 401, code: 'stale_timestamp' });
      await expectNothingStored(t.store);
      expect(await counterValue(t.metrics, 'rejectedSignatures', { source: provider.source, reason: 'stale_timestamp' })).toBe(1);
      const edge = await signed('d-2', { nowMs: T0 - 300_000 });
      expect((await post(t, provider.source, edge.body, edge.headers)).status).toBe(202);
    });

    it('a captured delivery replayed after the window is 401 stale_timestamp', async () => {
      const t = await apps.make();
      const { body, headers } = await signed('d-1');
      expect((await post(t, provider.source, body, headers)).status).toBe(202);
      t.clock.advance(10 * 60_000);
      expect(await errorOf(await post(t, provider.source, body, headers))).toMatchObject({ status: 401, code: 'stale_timestamp' });
      expect(await eventCount(t.store, 'alice')).toBe(1);
    });

    it('a timestamp 10 minutes in the future is 401 stale_timestamp: it would stretch the replay window', async () => {
      const t = await apps.make();
      const { body, headers } = await signed('d-1', { nowMs: T0 + 600_000 });
      expect(await errorOf(await post(t, provider.source, body, headers))).toMatchObject({ status: 401, code: 'stale_timestamp' });
      await expectNothingStored(t.store);
    });
  }
});
