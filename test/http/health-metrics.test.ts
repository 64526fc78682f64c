/** GET /healthz, GET /metrics, unknown routes, and how an unexpected failure looks from outside. */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Gauge } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { errorOf, SECRETS, useHttpApps } from './http-harness.js';

describe('health, metrics and failures', () => {
  const apps = useHttpApps();

  it('GET /healthz is 200 {"ok":true,"status":"ok"} while the store answers', async () => {
    const t = await apps.make();
    const res = await t.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, status: 'ok' });
  });

  it('GET /healthz is 503 once the store is closed', async () => {
    const t = await apps.make();
    await t.store.close();
    const res = await t.request('/healthz');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ok: false });
  });

  it('GET /metrics is Prometheus text with ingested, duplicate and rejected counts', async () => {
    const t = await apps.make();
    const body = JSON.stringify({ action: 'opened' });
    const headers = { 'x-github-delivery': 'd-1', 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
    await t.request('/hooks/alice/github', { method: 'POST', body, headers });
    await t.request('/hooks/alice/github', { method: 'POST', body, headers });
    await t.request('/hooks/alice/github', { method: 'POST', body: body + ' ', headers });
    const res = await t.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('vigil_events_ingested_total{source="github"} 1');
    expect(text).toContain('vigil_events_duplicate_total{source="github"} 1');
    expect(text).toContain('vigil_webhook_rejected_total{source="github",reason="bad_signature"} 1');
  });

  it('an unexpected failure is a 500 JSON body with no details, and the stack goes to the log', async () => {
    const t = await apps.make();
    new Gauge({
      name: 'broken_collector',
      help: 'a collector with a bug',
      registers: [t.metrics.registry],
      collect() {
        throw new Error('collector bug at line 7');
      },
    });
    const res = await t.request('/metrics');
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal', message: 'internal error' } });
    expect(text).not.toContain('collector bug');
    const logged = t.logs().find((line) => line.level === 50);
    expect(logged?.msg).toBe('request failed');
    expect(String((logged?.err as { stack?: string }).stack)).toContain('collector bug at line 7');
  });

  it('an unknown route is a JSON 404', async () => {
    const t = await apps.make();
    expect(await errorOf(await t.request('/nope'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await errorOf(await t.request('/hooks/alice/github'))).toMatchObject({ status: 404, code: 'not_found' });
  });
});
