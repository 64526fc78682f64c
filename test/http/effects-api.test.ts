/**
 * The ledger of side effects over the bearer-token API: the unknown calls
 * listed, one settled once (recorded), a second settle 409 not_unknown and
 * a bad body 400, nothing changed.
 */
import { describe, expect, it } from 'vitest';
import { errorOf, SECRETS, useHttpApps, type TestApp } from './http-harness.js';

const auth = { authorization: `Bearer ${SECRETS.token}`, 'content-type': 'application/json' };
const list = (t: TestApp, query = '') => t.app.hono.request(`/inboxes/alice/effects${query}`, { headers: auth });
const settle = (t: TestApp, key: string, body: unknown, headers: Record<string, string> = auth) =>
  t.app.hono.request(`/inboxes/alice/effects/${key}`, { method: 'POST', body: JSON.stringify(body), headers });

describe('/inboxes/:inbox/effects', () => {
  const apps = useHttpApps();

  it('lists the unknown calls; POST settles one once, recorded; then 409 not_unknown; a bad state 400; no token 401', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm-1' });
    const gen = (await inbox.acquire('worker'))!;
    await inbox.claimBatch('worker', gen);
    await inbox.startEffect('worker', gen, { key: 'k-42', tool: 'refund', input: { order: '42' } });
    expect(await (await list(t)).json()).toEqual({ effects: [] }); // its run is still live
    await inbox.release('worker', gen);

    const listed = await list(t);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject({ effects: [{ key: 'k-42', tool: 'refund', input: { order: '42' }, state: 'started', unknown: true }] });
    expect((await settle(t, 'k-42', { state: 'confirmed' }, { 'content-type': 'application/json' })).status).toBe(401);
    expect(await errorOf(await settle(t, 'k-42', { state: 'maybe' }))).toMatchObject({ status: 400, code: 'invalid_state' });
    expect(await errorOf(await list(t, '?all=yes'))).toMatchObject({ status: 400, code: 'invalid_query' });

    const settled = await settle(t, 'k-42', { state: 'confirmed' });
    expect([settled.status, await settled.json()]).toEqual([200, { settled: 'confirmed' }]);
    expect(await errorOf(await settle(t, 'k-42', { state: 'failed' }))).toMatchObject({ status: 409, code: 'not_unknown' });
    expect(await errorOf(await settle(t, 'k-none', { state: 'failed' }))).toMatchObject({ status: 409, code: 'not_unknown' });
    expect(await (await list(t)).json()).toEqual({ effects: [] });
    expect(await (await list(t, '?all=1')).json()).toMatchObject({ effects: [{ key: 'k-42', state: 'confirmed', unknown: false }] });
    expect((await t.store.view('alice').actions()).map((a) => [a.actor, a.action, a.target])).toEqual([['api', 'settle effect confirmed', 'k-42']]);
  });
});
