/**
 * Inbound routing: `POST /hooks/<source>` for every user at one URL. The
 * signature is checked first; then the inbox comes from the verified body
 * (`inbox.from` + `prefix`) or from the agent's route(). A delivery that
 * names no valid inbox is 422 unroutable, logged, counted and not stored.
 * (A real `vigil serve`: test/service/routing.test.ts.)
 */
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import type { InboxRouter } from '../../src/agent/agent.js';
import { parseConfig } from '../../src/config/load-config.js';
import { inboxFromPayload } from '../../src/http/webhooks/route-inbox.js';
import type { ServiceConfigInput } from '../../src/config/schema.js';
import { counterValue, errorOf, eventCount, expectNothingStored, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

const SOURCES: ServiceConfigInput['sources'] = {
  gh: { type: 'github', secret: SECRETS.github, inbox: { from: 'sender.login', prefix: 'gh-' } },
  ghid: { type: 'github', secret: SECRETS.github, inbox: { from: 'sender.id' } },
  slack: { type: 'slack', secret: SECRETS.slack, inbox: { from: 'event.user', prefix: 'slack-' } },
  slash: { type: 'slack', secret: SECRETS.slack, inbox: { from: 'user_id', prefix: 'slack-' } },
  plain: { type: 'github', secret: SECRETS.github },
};

async function github(t: TestApp, path: string, payload: unknown, id: string, secret = SECRETS.github): Promise<Response> {
  const body = JSON.stringify(payload);
  const headers = { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': await githubSign(secret, body) };
  return t.request(path, { method: 'POST', body, headers });
}

function slack(body: string, contentType = 'application/json') {
  const timestamp = String(Math.floor(T0 / 1000));
  const signature = 'v0=' + createHmac('sha256', SECRETS.slack).update(`v0:${timestamp}:${body}`).digest('hex');
  return { method: 'POST', body, headers: { 'content-type': contentType, 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature } };
}

describe('POST /hooks/:source (routed by the body)', () => {
  const apps = useHttpApps();
  const make = (route?: InboxRouter) => apps.make({ sources: SOURCES }, route === undefined ? {} : { route });

  it("two users' deliveries to one URL land in two inboxes: prefix + the value at the path", async () => {
    const t = await make();
    expect((await github(t, '/hooks/gh', { action: 'opened', sender: { login: 'octocat' } }, 'd-1')).status).toBe(202);
    expect((await github(t, '/hooks/gh', { action: 'opened', sender: { login: 'hubot' } }, 'd-2')).status).toBe(202);
    expect((await github(t, '/hooks/gh', { action: 'opened', sender: { login: 'octocat' } }, 'd-1')).status).toBe(200);
    expect(await t.store.inboxes()).toEqual(['gh-hubot', 'gh-octocat']);
    expect((await t.store.inbox('gh-octocat').events()).map((e) => [e.source, e.sourceId])).toEqual([['gh', 'd-1']]);
  });

  it('a number becomes a string', async () => {
    const t = await make();
    expect((await github(t, '/hooks/ghid', { sender: { id: 583231 } }, 'd-1')).status).toBe(202);
    expect(await t.store.inboxes()).toEqual(['583231']);
  });

  it.each([
    ['missing', { sender: {} }],
    ['no sender', { action: 'x' }],
    ['not a string or number', { sender: { login: { name: 'x' } } }],
    ['a boolean', { sender: { login: true } }],
    ['not a valid id after the prefix', { sender: { login: '../etc/passwd' } }],
    ['too long', { sender: { login: 'x'.repeat(126) } }],
    ['empty', { sender: { login: '' } }],
    ['an array', [1, 2]],
  ])('a delivery whose inbox is %s is 422 unroutable: nothing stored, logged and counted', async (_what, payload) => {
    const t = await make();
    const refused = await errorOf(await github(t, '/hooks/gh', payload, 'd-1'));
    expect(refused).toMatchObject({ status: 422, code: 'unroutable' });
    expect(refused.message).toContain('"sender.login"');
    await expectNothingStored(t.store);
    expect(await counterValue(t.metrics, 'rejectedSignatures', { source: 'gh', reason: 'unroutable' })).toBe(1);
    expect(t.logs().some((l) => l.msg === `webhook refused: ${refused.message}` && l.reason === 'unroutable')).toBe(true);
    const metrics = await (await t.request('/metrics')).text();
    expect(metrics).toContain('vigil_webhook_rejected_total{source="gh",reason="unroutable"} 1');
  });

  it('only own properties are followed: "constructor" leads nowhere; a "__proto__" the sender wrote is an ordinary key', async () => {
    const t = await apps.make({ sources: { gh: { type: 'github', secret: SECRETS.github, inbox: { from: 'constructor.name' } } } });
    expect(await errorOf(await github(t, '/hooks/gh', { a: 1 }, 'd-1'))).toMatchObject({ status: 422, code: 'unroutable' });
    const proto = await apps.make({ sources: { gh: { type: 'github', secret: SECRETS.github, inbox: { from: '__proto__.x' } } } });
    // JSON.parse makes "__proto__" an own key: followed, as any other key the sender wrote.
    expect((await github(proto, '/hooks/gh', JSON.parse('{"__proto__":{"x":"own"}}'), 'd-2')).status).toBe(202);
    expect(await proto.store.inboxes()).toEqual(['own']);
  });

  it('the signature is checked first: a forged delivery is 401 whatever it names, and an unroutable forged one too', async () => {
    const t = await make();
    expect(await errorOf(await github(t, '/hooks/gh', { sender: { login: 'octocat' } }, 'd-1', 'not-the-secret-0123456789abcdefghij'))).toMatchObject({ status: 401, code: 'bad_signature' });
    expect(await errorOf(await github(t, '/hooks/gh', { nothing: true }, 'd-2', 'not-the-secret-0123456789abcdefghij'))).toMatchObject({ status: 401, code: 'bad_signature' });
    await expectNothingStored(t.store);
  });

  it('POST /hooks/<inbox>/<source> keeps working for a routed source (the path wins)', async () => {
    const t = await make();
    expect((await github(t, '/hooks/alice/gh', { sender: { login: 'octocat' } }, 'd-1')).status).toBe(202);
    expect(await t.store.inboxes()).toEqual(['alice']);
  });

  it('a source without routing, or with a secret per inbox, is 404 not_routed at POST /hooks/<source>, before its body is read', async () => {
    const t = await apps.make({ sources: { ...SOURCES, mine: { type: 'github', secret: { derive: 'env:MASTER' } } } }, { env: { MASTER: 'master-secret-0123456789abcdef0123456' } });
    expect(await errorOf(await github(t, '/hooks/plain', { sender: { login: 'x' } }, 'd-1'))).toMatchObject({ status: 404, code: 'not_routed' });
    expect(await errorOf(await github(t, '/hooks/mine', { sender: { login: 'x' } }, 'd-1'))).toMatchObject({ status: 404, code: 'not_routed' });
    expect(await errorOf(await github(t, '/hooks/nope', {}, 'd-1'))).toMatchObject({ status: 404, code: 'unknown_source' });
    await expectNothingStored(t.store);
  });

  it('the config refuses routing a source whose secret is per inbox, and a prefix that cannot start an id', () => {
    expect(() => parseConfig({ sources: { gh: { type: 'github', secret: { derive: 'env:M' }, inbox: { from: 'sender.login' } } } })).toThrow(/sources\.gh\.inbox: a routed source needs a fixed "secret"/);
    expect(() => parseConfig({ sources: { gh: { type: 'github', secret: 's', inbox: { from: 'sender.login', prefix: '-x' } } } })).toThrow(/sources\.gh\.inbox\.prefix: /);
    expect(() => parseConfig({ sources: { gh: { type: 'github', secret: 's', inbox: { from: 'sender..login' } } } })).toThrow(/sources\.gh\.inbox\.from: /);
  });

  describe('Slack', () => {
    it("answers the Events API's url_verification challenge at the routed URL, after the signature, storing nothing", async () => {
      const t = await make();
      const res = await t.request('/hooks/slack', slack(JSON.stringify({ type: 'url_verification', token: 't', challenge: 'ch-42' })));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ challenge: 'ch-42' });
      await expectNothingStored(t.store);
      const forged = slack(JSON.stringify({ type: 'url_verification', challenge: 'x' }));
      forged.headers['x-slack-signature'] = 'v0=' + '0'.repeat(64);
      expect((await t.request('/hooks/slack', forged)).status).toBe(401);
    });

    it("routes an event by event.user, and a slash command's form by user_id", async () => {
      const t = await make();
      const event = { type: 'event_callback', event_id: 'Ev1', event: { type: 'message', user: 'U123', text: 'hi' } };
      expect((await t.request('/hooks/slack', slack(JSON.stringify(event)))).status).toBe(202);
      const form = new URLSearchParams({ command: '/quiet', text: '22:00-07:00', user_id: 'U456', trigger_id: 't.1' }).toString();
      const answered = await t.request('/hooks/slash', slack(form, 'application/x-www-form-urlencoded'));
      expect([answered.status, await answered.text()]).toEqual([200, '']);
      expect(await t.store.inboxes()).toEqual(['slack-U123', 'slack-U456']);
    });
  });
});

describe("POST /hooks/:source routed by the agent's route()", () => {
  const apps = useHttpApps();
  const sources: ServiceConfigInput['sources'] = { plain: { type: 'github', secret: SECRETS.github } };

  it('runs after verification with the source, payload and headers, and its answer is the inbox', async () => {
    const calls: unknown[] = [];
    const t = await apps.make({ sources }, {
      route: (source, payload, headers) => {
        calls.push([source, headers['x-github-delivery']]);
        const org = (payload as { org?: string }).org;
        return org === undefined ? null : `org-${org}`;
      },
    });
    expect((await github(t, '/hooks/plain', { org: 'acme' }, 'd-1')).status).toBe(202);
    expect(await t.store.inboxes()).toEqual(['org-acme']);
    expect(await errorOf(await github(t, '/hooks/plain', { other: 1 }, 'd-2'))).toMatchObject({ status: 422, code: 'unroutable' });
    expect(await errorOf(await github(t, '/hooks/plain', { org: 'acme' }, 'd-3', 'forged-secret-0123456789abcdefghijkl'))).toMatchObject({ status: 401 });
    expect(calls).toEqual([
      ['plain', 'd-1'],
      ['plain', 'd-2'],
    ]);
    expect(await eventCount(t.store, 'org-acme')).toBe(1);
  });

  it('an answer that is not a valid inbox id, and a route() that throws, are 422 unroutable; the throw is logged as an error', async () => {
    const answers: unknown[] = ['../x', 42, '', { id: 'x' }];
    const t = await apps.make({ sources }, {
      route: async () => {
        if (answers.length === 0) throw new Error('route bug');
        return answers.shift() as string;
      },
    });
    for (let i = 0; i < 5; i++) expect(await errorOf(await github(t, '/hooks/plain', { n: i }, `d-${i}`))).toMatchObject({ status: 422, code: 'unroutable' });
    await expectNothingStored(t.store);
    expect(t.logs().filter((l) => l.msg === "the agent's route() threw; the delivery is refused as unroutable")).toEqual([expect.objectContaining({ level: 50, source: 'plain' })]);
  });

  it('a source with inbox.from is routed by it, not by route()', async () => {
    const t = await apps.make({ sources: { gh: { type: 'github', secret: SECRETS.github, inbox: { from: 'sender.login' } } } }, { route: () => 'from-route' });
    expect((await github(t, '/hooks/gh', { sender: { login: 'octocat' } }, 'd-1')).status).toBe(202);
    expect(await t.store.inboxes()).toEqual(['octocat']);
  });
});

describe('inboxFromPayload on its own', () => {
  const at = (payload: unknown, from: string, prefix = '') => inboxFromPayload(payload, { from, prefix });

  it('follows objects and arrays only: a string, a number or null on the way names no inbox', () => {
    expect(at({ a: { b: 'x' } }, 'a.b')).toBe('x');
    expect(at({ a: ['x', 'y'] }, 'a.1')).toBe('y');
    // A string has own "length" and index properties: following them would route "abc" to inbox "3" or "a".
    expect(at({ a: 'abc' }, 'a.length')).toBeNull();
    expect(at({ a: 'abc' }, 'a.0')).toBeNull();
    expect(at({ a: null }, 'a.b')).toBeNull();
    expect(at(null, 'a')).toBeNull();
    expect(at({ a: 7 }, 'a.b')).toBeNull();
  });

  it('a finite number becomes its decimal string; NaN and the infinities name nobody', () => {
    expect(at({ id: 42 }, 'id', 'u-')).toBe('u-42');
    expect(at({ id: Infinity }, 'id')).toBeNull();
    expect(at({ id: -Infinity }, 'id', 'u')).toBeNull();
    expect(at({ id: NaN }, 'id')).toBeNull();
    expect(at({ id: true }, 'id', 'u')).toBeNull();
  });
});
