/**
 * GitHub's default content type for a webhook is the form
 * (application/x-www-form-urlencoded): the delivery's JSON comes as the
 * form's field `payload`, and the signature is over the form as sent. Such
 * a delivery is stored as the same JSON sent as application/json would be.
 */
import { sign } from '@octokit/webhooks-methods';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../../src/http/server.js';
import { errorOf, expectNothingStored, SECRETS, useHttpApps } from './http-harness.js';

const FORM = 'application/x-www-form-urlencoded';
const PAYLOAD = { action: 'opened', issue: { number: 7, title: 'Ünïcode & ampersands = fine 😀' }, repository: { full_name: 'o/r' } };

async function signedForm(id: string, form: string) {
  return { body: form, headers: { 'content-type': FORM, 'x-github-delivery': id, 'x-hub-signature-256': await sign(SECRETS.github, form) } };
}

describe('GitHub deliveries as a form (content type application/x-www-form-urlencoded)', () => {
  const apps = useHttpApps();

  it('over real HTTP, a signed form delivery is stored as the JSON of its "payload" field, acked 202; the same delivery as JSON is then a duplicate', async () => {
    const t = await apps.make();
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      const { body, headers } = await signedForm('d-1', new URLSearchParams({ payload: JSON.stringify(PAYLOAD) }).toString());
      const res = await fetch(`${server.url}/hooks/alice/github`, { method: 'POST', body, headers });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ stored: true });
      expect((await t.store.inbox('alice').getEvent('github', 'd-1'))?.payload).toEqual(PAYLOAD);

      const json = JSON.stringify(PAYLOAD);
      const again = await fetch(`${server.url}/hooks/alice/github`, {
        method: 'POST',
        body: json,
        headers: { 'content-type': 'application/json', 'x-github-delivery': 'd-1', 'x-hub-signature-256': await sign(SECRETS.github, json) },
      });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ stored: false, duplicate: true });
    } finally {
      await server.close({ forceAfterMs: 0 });
    }
  });

  it('the signature is over the form as sent: a form changed after signing is 401 bad_signature, nothing stored', async () => {
    const t = await apps.make();
    const { headers } = await signedForm('d-1', new URLSearchParams({ payload: JSON.stringify(PAYLOAD) }).toString());
    const forged = new URLSearchParams({ payload: JSON.stringify({ ...PAYLOAD, action: 'closed' }) }).toString();
    const res = await t.request('/hooks/alice/github', { method: 'POST', body: forged, headers });
    expect(await errorOf(res)).toMatchObject({ status: 401, code: 'bad_signature' });
    await expectNothingStored(t.store);
  });

  it('a signed form without a "payload" field, with a "payload" that is not JSON, or with bytes that are not UTF-8 is a 400 saying so, nothing stored', async () => {
    const t = await apps.make();
    const post = async (id: string, form: string | Buffer) => {
      const signature = `sha256=${createHmac('sha256', SECRETS.github).update(form).digest('hex')}`;
      const headers = { 'content-type': `${FORM}; charset=utf-8`, 'x-github-delivery': id, 'x-hub-signature-256': signature };
      return errorOf(await t.request('/hooks/alice/github', { method: 'POST', body: form, headers }));
    };
    expect(await post('d-1', 'action=opened')).toMatchObject({ status: 400, code: 'bad_form', message: expect.stringContaining('"payload"') });
    expect(await post('d-2', 'payload=%7Bnot+json')).toMatchObject({ status: 400, code: 'bad_json', message: 'the form field "payload" is not valid JSON' });
    expect(await post('d-3', Buffer.from([0x70, 0x61, 0x79, 0x6c, 0x6f, 0x61, 0x64, 0x3d, 0xff]))).toMatchObject({ status: 400, code: 'bad_form' });
    await expectNothingStored(t.store);
  });
});
