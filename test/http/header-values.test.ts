/**
 * Header values used as keys, as Node delivers them: one character per byte.
 * A UTF-8 delivery id is stored as the text that was sent (not as mojibake),
 * bytes that are not UTF-8 and a header sent twice are refused with a 400,
 * and nothing is stored for a refusal. The same over a real socket against
 * `vigil serve`: test/service/hardening.test.ts.
 */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { errorOf, expectNothingStored, SECRETS, T0, useHttpApps } from './http-harness.js';

/** What Node makes of a header sent as these UTF-8 bytes. */
const onTheWire = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

describe('delivery ids and idempotency keys from headers', () => {
  const apps = useHttpApps();
  const body = JSON.stringify({ action: 'opened' });

  it('a UTF-8 X-GitHub-Delivery is stored as sent', async () => {
    const t = await apps.make();
    const headers = { 'x-github-delivery': onTheWire('lieferung-ä-😀'), 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
    expect((await t.request('/hooks/alice/github', { method: 'POST', body, headers })).status).toBe(202);
    expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['lieferung-ä-😀']);
  });

  it('a delivery id that is not UTF-8 is 400 invalid_header, nothing stored', async () => {
    const t = await apps.make();
    const headers = { 'x-github-delivery': 'id-\xff\xfe', 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
    expect(await errorOf(await t.request('/hooks/alice/github', { method: 'POST', body, headers }))).toMatchObject({ status: 400, code: 'invalid_header' });
    await expectNothingStored(t.store);
  });

  it('an X-GitHub-Delivery sent twice (joined "a, b") is 400 invalid_header, not the key "a, b"', async () => {
    const t = await apps.make();
    const headers = new Headers({ 'x-hub-signature-256': await githubSign(SECRETS.github, body) });
    headers.append('x-github-delivery', 'a');
    headers.append('x-github-delivery', 'b');
    const refused = await errorOf(await t.request('/hooks/alice/github', { method: 'POST', body, headers }));
    expect(refused).toMatchObject({ status: 400, code: 'invalid_header' });
    expect(refused.message).toContain('sent more than once');
    await expectNothingStored(t.store);
  });

  it('a UTF-8 webhook-id (Standard Webhooks) is verified over the bytes sent and stored as sent', async () => {
    const t = await apps.make();
    const id = 'msg_äöü';
    const signature = new Webhook(SECRETS.standard).sign(id, new Date(T0), body);
    const headers = { 'webhook-id': onTheWire(id), 'webhook-timestamp': String(T0 / 1000), 'webhook-signature': signature };
    expect((await t.request('/hooks/alice/standard', { method: 'POST', body, headers })).status).toBe(202);
    expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual([id]);
  });

  it('an Idempotency-Key is read the same way', async () => {
    const t = await apps.make();
    const send = (key: string) =>
      t.request('/inboxes/alice/messages', { method: 'POST', body: '{"text":"hi"}', headers: { authorization: `Bearer ${SECRETS.token}`, 'idempotency-key': key } });
    expect((await send(onTheWire('schlüssel-1'))).status).toBe(202);
    expect(await errorOf(await send('k1, k2'))).toMatchObject({ status: 400, code: 'invalid_header' });
    expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['schlüssel-1']);
  });
});
