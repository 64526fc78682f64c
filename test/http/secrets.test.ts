/** "env:VAR" secrets are resolved once, when the app is created; a missing variable is an error naming it. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveSecret } from '../../src/config/secrets.js';
import { isVigilError } from '../../src/index.js';
import { approvalPath } from '../../src/http/approval-links.js';
import { errorOf, SECRETS, T0, useHttpApps } from './http-harness.js';

describe('resolveSecret', () => {
  it('returns an inline secret unchanged and reads "env:VAR" from the environment', () => {
    expect(resolveSecret('plain', {})).toBe('plain');
    expect(resolveSecret('env:HOOK_SECRET', { HOOK_SECRET: 's3cret' })).toBe('s3cret');
  });

  it('a missing or empty variable is an invalid_options error naming the variable and the field', () => {
    for (const env of [{}, { HOOK_SECRET: '' }]) {
      let caught: unknown;
      try {
        resolveSecret('env:HOOK_SECRET', env, 'sources.github.secret');
      } catch (error) {
        caught = error;
      }
      expect(isVigilError(caught, 'invalid_options')).toBe(true);
      expect((caught as Error).message).toMatch(/^sources\.github\.secret: environment variable HOOK_SECRET is not set/);
    }
    expect(() => resolveSecret('env:', {})).toThrow(/must name an environment variable/);
  });
});

describe('createApp with env secrets', () => {
  const apps = useHttpApps();

  it('uses the resolved values for webhook secrets and the API token', async () => {
    const env = { ACME_SECRET: 'from-env', API_TOKEN: 'tok-from-env' };
    const t = await apps.make(
      { sources: { acme: { type: 'hmac', secret: 'env:ACME_SECRET', signatureHeader: 'x-sig', keyHeader: 'x-id' } }, token: 'env:API_TOKEN' },
      { env },
    );
    const body = '{"n":1}';
    const signature = createHmac('sha256', 'from-env').update(body).digest('hex');
    expect((await t.app.request('/hooks/alice/acme', { method: 'POST', body, headers: { 'x-sig': signature, 'x-id': '1' } })).status).toBe(202);
    const message = (authorization: string) =>
      t.app.request('/inboxes/alice/messages', { method: 'POST', body: '{"text":"hi"}', headers: { authorization, 'idempotency-key': 'k' } });
    expect(await errorOf(await message('Bearer env:API_TOKEN'))).toMatchObject({ status: 401 });
    expect((await message('Bearer tok-from-env')).status).toBe(202);
  });

  it('fails at creation, not on the first delivery, when a variable is missing', async () => {
    await expect(apps.make({ sources: { gh: { type: 'github', secret: 'env:NOT_SET_ANYWHERE' } } }, { env: {} })).rejects.toThrow(
      /sources\.gh\.secret: environment variable NOT_SET_ANYWHERE is not set/,
    );
  });

  it('a Standard Webhooks secret that is not base64 fails at creation', async () => {
    await expect(apps.make({ sources: { sw: { type: 'standard-webhooks', secret: 'whsec_not base64!' } } })).rejects.toThrow(/whsec_/);
  });

  it('resolves an "env:" link secret: links signed with its value verify', async () => {
    const t = await apps.make({}, { linkSecret: 'env:LINK', env: { LINK: SECRETS.link } });
    await t.store.inbox('alice').requestApproval({ id: 'r', expiresInMs: 60_000, action: 'Refund?' });
    const path = approvalPath(SECRETS.link, { inboxId: 'alice', approvalId: 'r', expiresAt: T0 + 60_000 });
    expect((await t.app.request(path)).status).toBe(200);
  });
});
