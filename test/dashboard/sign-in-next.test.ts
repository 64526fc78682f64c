/**
 * Where signing in sends the browser, over real HTTP against a real `vigil
 * serve` on 127.0.0.1: every `next` an attacker could try answers a
 * Location that a browser (the WHATWG URL parser, which Node's URL is)
 * resolves to this service's own origin; the cases are in
 * sign-in-next-cases.ts, and browser-sign-in-next.test.ts follows the same
 * ones in Chromium.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceHarness } from '../fixtures/service-process.js';
import { KEPT_NEXT, OFF_SITE_NEXT } from './sign-in-next-cases.js';

const TOKEN = 'sign-in-next-token-0123456789abcdef';
const harness = new ServiceHarness();
let url: string;
let origin: string;

beforeAll(async () => {
  const dir = harness.tempDir('vigil-sign-in-next-');
  const config = harness.writeConfig(dir, { store: `sqlite:${join(dir, 'data')}`, port: 0, token: TOKEN });
  url = await harness.serve(config).url();
  origin = new URL(url).origin;
});

afterAll(async () => {
  await harness.cleanup();
});

/** Signs in with `next`; the answer's status and Location, and where a browser goes from there. */
async function signIn(next: string): Promise<{ status: number; location: string | null; lands: URL | null }> {
  const response = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ token: TOKEN, next }).toString(),
  });
  const location = response.headers.get('location');
  return { status: response.status, location, lands: location === null ? null : new URL(location, url) };
}

/** The hidden `next` field of the sign-in form at /login?next=…: what the browser will post back. */
async function formNext(next: string): Promise<string> {
  const page = await (await fetch(`${url}/login?next=${encodeURIComponent(next)}`)).text();
  const value = /name="next" value="([^"]*)"/.exec(page)?.[1];
  if (value === undefined) throw new Error(`no next field in the sign-in page:\n${page}`);
  return value.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
}

describe('sign-in next, over HTTP', () => {
  it.each(OFF_SITE_NEXT.map((next) => [JSON.stringify(next), next]))('next=%s: 303 to the dashboard root on this origin', async (_, next) => {
    const answer = await signIn(next);
    expect([answer.status, answer.location]).toEqual([303, '/']);
    expect(answer.lands?.origin).toBe(origin);
    expect(await formNext(next)).toBe('/');
  });

  it.each(KEPT_NEXT.map(([next, location]) => [JSON.stringify(next), next, location]))('next=%s: kept, on this origin', async (_, next, location) => {
    const answer = await signIn(next);
    expect([answer.status, answer.location]).toEqual([303, location]);
    expect(answer.lands?.origin).toBe(origin);
    expect(answer.lands?.pathname + answer.lands!.search + answer.lands!.hash).toBe(location);
    expect(await formNext(next)).toBe(location);
  });
});
