/** GET /favicon.ico, which every browser asks for: 204 and cached, not a 404 JSON error. */
import { expect, it } from 'vitest';
import { useHttpApps } from './http-harness.js';

const apps = useHttpApps();

it('is 204 with no body, cacheable, signed in or not', async () => {
  const t = await apps.make();
  const res = await t.app.hono.request('/favicon.ico');
  expect(res.status).toBe(204);
  expect(await res.text()).toBe('');
  expect(res.headers.get('cache-control')).toBe('public, max-age=604800');
});
