/** "env:VAR" secrets are read once, when the config is loaded (resolve-config.ts); a missing variable is an error naming it. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveSecret } from '../../src/config/secrets.js';
import { ConfigError } from '../../src/config/config-error.js';
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

describe("the config's env secrets, as the app gets them", () => {
  const apps = useHttpApps();

  it('uses the resolved values for webhook secrets and the API token', async () => {
    const env = { ACME_SECRET: 'acme-secret-from-env-0123456789abcdef', API_TOKEN: 'api-token-from-env-0123456789abcdef' };
    const t = await apps.make(
      { sources: { acme: { type: 'hmac', secret: 'env:ACME_SECRET', signatureHeader: 'x-sig', keyHeader: 'x-id' } }, token: 'env:API_TOKEN' },
      { env },
    );
    const body = '{"n":1}';
    const signature = createHmac('sha256', env.ACME_SECRET).update(body).digest('hex');
    expect((await t.request('/hooks/alice/acme', { method: 'POST', body, headers: { 'x-sig': signature, 'x-id': '1' } })).status).toBe(202);
    const message = (authorization: string) =>
      t.request('/inboxes/alice/messages', { method: 'POST', body: '{"text":"hi"}', headers: { authorization, 'idempotency-key': 'k' } });
    expect(await errorOf(await message('Bearer env:API_TOKEN'))).toMatchObject({ status: 401 });
    expect((await message(`Bearer ${env.API_TOKEN}`)).status).toBe(202);
  });

  it('fails when the config is loaded, not on the first delivery, when a variable is missing', async () => {
    await expect(apps.make({ sources: { gh: { type: 'github', secret: 'env:NOT_SET_ANYWHERE' } } }, { env: {} })).rejects.toThrow(
      /sources\.gh\.secret: environment variable NOT_SET_ANYWHERE is not set/,
    );
  });

  it('a Standard Webhooks secret that is not base64 fails at creation', async () => {
    await expect(apps.make({ sources: { sw: { type: 'standard-webhooks', secret: 'whsec_not base64! but long enough to pass the length' } } })).rejects.toThrow(/whsec_/);
  });

  it('resolves an "env:" link secret: links signed with its value verify', async () => {
    const t = await apps.make({ linkSecret: 'env:LINK' }, { env: { LINK: SECRETS.link } });
    await t.store.inbox('alice').requestApproval({ id: 'r', expiresInMs: 60_000, action: 'Refund?' });
    const path = approvalPath(SECRETS.link, { inboxId: 'alice', approvalId: 'r', expiresAt: T0 + 60_000 });
    expect((await t.request(path)).status).toBe(200);
  });
});

describe('secrets too short to be safe are refused at startup', () => {
  const apps = useHttpApps();
  const short = 'guessable-in-a-day';

  it.each([
    ['token', { token: short }, {}],
    ['token', { token: 'env:TOKEN' }, { env: { TOKEN: short } }],
    ['linkSecret', { linkSecret: short }, {}],
    ['sources.gh.secret', { sources: { gh: { type: 'github' as const, secret: short } } }, {}],
    ['sources.pay.secret', { sources: { pay: { type: 'stripe' as const, secret: 'whsec_short' } } }, {}],
  ])('%s: at least 32 characters, saying how to make one, never quoting the value', async (field, config, deps) => {
    const made = apps.make(config, deps);
    await expect(made).rejects.toBeInstanceOf(ConfigError);
    const error = (await made.catch((caught: unknown) => caught)) as ConfigError;
    expect(error.issues).toEqual([`${field}: must be at least 32 characters, so that it cannot be guessed; make one with: openssl rand -hex 32 (value not shown)`]);
    expect(error.message).not.toContain(short);
  });

  it('a token that could not be sent as a Bearer token is refused (the right one would never get through)', async () => {
    const spaced = 'a token with spaces in it, but long enough';
    const error = (await apps.make({ token: spaced }).catch((caught: unknown) => caught)) as ConfigError;
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(/^token: use only letters, digits and \. _ ~ \+ \/ - .*openssl rand -hex 32 \(value not shown\)$/);
  });
});
