/**
 * Webhook secrets per inbox: a source with `"secret": { "derive": … }`
 * verifies each delivery with the secret derived for the inbox in its path,
 * so one user's secret (or a delivery captured from them) writes into their
 * inbox and no other. (The `vigil secret` command and a real `vigil serve`:
 * test/service/hardening.test.ts.)
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { perInboxSecret } from '../../src/http/webhooks/source-secret.js';
import { ConfigError } from '../../src/config/config-error.js';
import { errorOf, eventCount, useHttpApps, type TestApp } from './http-harness.js';

const MASTER = 'master-secret-for-per-inbox-tests-0123456789';
const SOURCES = {
  gh: { type: 'github' as const, secret: { derive: 'env:GH_MASTER' } },
  acme: { type: 'hmac' as const, secret: { derive: 'env:GH_MASTER' }, signatureHeader: 'x-sig', keyHeader: 'x-id' },
};
const ENV = { GH_MASTER: MASTER };

function githubDelivery(secret: string, id: string) {
  const body = JSON.stringify({ action: 'opened', id });
  const signature = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  return { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': signature } };
}

describe('webhook secrets per inbox', () => {
  const apps = useHttpApps();
  const make = (): Promise<TestApp> => apps.make({ sources: SOURCES }, { env: ENV });

  it("a delivery signed with alice's secret is stored in alice's inbox and refused at every other", async () => {
    const t = await make();
    const alice = perInboxSecret(MASTER, 'gh', 'alice');
    expect(alice).toMatch(/^[0-9a-f]{64}$/);
    expect((await t.request('/hooks/alice/gh', githubDelivery(alice, 'd-1'))).status).toBe(202);
    // The same captured delivery, replayed into another user's inbox.
    expect(await errorOf(await t.request('/hooks/bob/gh', githubDelivery(alice, 'd-1')))).toMatchObject({ status: 401, code: 'bad_signature' });
    expect(await eventCount(t.store, 'alice')).toBe(1);
    expect(await t.store.inboxes()).toEqual(['alice']);
  });

  it('the master itself signs nothing, and each source has its own secrets from one master', async () => {
    const t = await make();
    expect((await t.request('/hooks/alice/gh', githubDelivery(MASTER, 'd-1'))).status).toBe(401);
    expect(perInboxSecret(MASTER, 'acme', 'alice')).not.toBe(perInboxSecret(MASTER, 'gh', 'alice'));
    const body = '{"n":1}';
    const signed = (secret: string) => ({ method: 'POST', body, headers: { 'x-id': 'a-1', 'x-sig': createHmac('sha256', secret).update(body).digest('hex') } });
    expect((await t.request('/hooks/alice/acme', signed(perInboxSecret(MASTER, 'gh', 'alice')))).status).toBe(401);
    expect((await t.request('/hooks/alice/acme', signed(perInboxSecret(MASTER, 'acme', 'alice')))).status).toBe(202);
  });

  it('ids differing only in case are different inboxes with different secrets', () => {
    expect(perInboxSecret(MASTER, 'gh', 'Alice')).not.toBe(perInboxSecret(MASTER, 'gh', 'alice'));
  });

  it('a short or missing master stops startup, naming the field', async () => {
    await expect(apps.make({ sources: SOURCES }, { env: { GH_MASTER: 'short' } })).rejects.toThrow(/\n {2}- sources\.gh\.secret\.derive: must be at least 32 characters/);
    const missing = apps.make({ sources: SOURCES }, { env: {} });
    await expect(missing).rejects.toBeInstanceOf(ConfigError);
    await expect(missing).rejects.toThrow(/sources\.gh\.secret\.derive: environment variable GH_MASTER is not set/);
  });

  it('only sources whose senders choose the secret can derive one: Stripe, Slack and Standard Webhooks issue their own', () => {
    for (const type of ['stripe', 'slack', 'standard-webhooks']) {
      expect(() => parseConfig({ sources: { s: { type, secret: { derive: 'env:M' } } } })).toThrow(/sources\.s\.secret: /);
    }
    expect(() => parseConfig({ sources: { s: { type: 'github', secret: { derive: '' } } } })).toThrow(/sources\.s\.secret\.derive: /);
    expect(() => parseConfig({ sources: { s: { type: 'github' } } })).toThrow(/sources\.s\.secret: required/);
  });
});
