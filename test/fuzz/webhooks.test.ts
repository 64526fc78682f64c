/**
 * Fuzz: POST /hooks/:inbox/:source over a real socket to the real app (a
 * github and an hmac source, a real SQLite store) with arbitrary bodies (random bytes,
 * invalid UTF-8, over the limit), header values and casing, valid and
 * forged signatures, and arbitrary inbox ids and source names in the path.
 * The status is one of 200/202/400/401/404/413, never 5xx; every refusal
 * is JSON { error: { code, message } } and stores nothing; a 202 stores
 * the body as parsed, once.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { headerText } from '../../src/http/header-values.js';
import { SECRETS, useHttpApps } from '../http/http-harness.js';
import { nastyString } from './fuzz-kit.js';

const MAX_BODY = 4096;
const ALLOWED = [200, 202, 400, 401, 404, 413];

/** Bytes a header value may hold (no NUL, CR or LF; the Headers class trims the ends). */
const headerValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('d-1', 'd-2', 'd-3') },
  { weight: 2, arbitrary: fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(256), 'x'.repeat(257), 'x'.repeat(2000), ' ', '__proto__') },
);

const bodyArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 5, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from('"\uD800"'), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), Buffer.alloc(0), Buffer.from('{"a":1}\u0000')) },
  { weight: 1, arbitrary: fc.integer({ min: MAX_BODY - 10, max: MAX_BODY + 100 }).map((n) => Buffer.from(JSON.stringify({ pad: 'p'.repeat(Math.max(0, n - 10)) }))) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 50 }).map((s) => Buffer.from(JSON.stringify({ s }))) },
);

const segment = (names: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 14, arbitrary: fc.constantFrom(...names) },
    { weight: 2, arbitrary: nastyString({ loneSurrogates: false }).map((s) => encodeURIComponent(s)) },
    { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', 'a%2Fb', '%00', 'a%ZZ', '%', '-x', '_vigil-ready', 'constructor', '__proto__') },
  );

type Signature = 'valid' | 'valid-upper' | 'valid-bare' | 'forged' | 'garbage' | 'missing';
const signatureArb = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Signature>('valid') },
  { weight: 1, arbitrary: fc.constantFrom<Signature>('valid-upper', 'valid-bare', 'forged', 'garbage', 'missing') },
);

/** Randomly cased header names: HTTP header names are case-insensitive. */
const casing = (name: string, flips: boolean[]): string => [...name].map((ch, i) => (flips[i % flips.length] ? ch.toUpperCase() : ch)).join('');

const requestArb = fc.record({
  inbox: segment(['alice', 'bob']),
  source: segment(['github', 'acme', 'github', 'acme', 'stripe', 'nope']),
  body: bodyArb,
  signature: signatureArb,
  garbage: headerValue,
  delivery: fc.option(headerValue, { nil: undefined, freq: 8 }),
  flips: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''),
  // Over a socket the length is the body's own: a declared length that lies is the HTTP parser's to refuse (hooks-route.test.ts has the over-limit one).
});

function sign(source: string, body: Uint8Array, kind: Signature, garbage: string): string | undefined {
  const secret = source === 'acme' ? SECRETS.hmac : SECRETS.github;
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  switch (kind) {
    case 'valid':
      return `sha256=${hex}`;
    case 'valid-upper':
      return `sha256=${hex.toUpperCase()}`;
    case 'valid-bare':
      return hex;
    case 'forged':
      return `sha256=${createHmac('sha256', 'not-the-secret').update(body).digest('hex')}`;
    case 'garbage':
      return garbage;
    case 'missing':
      return undefined;
  }
}

async function snapshot(store: Store): Promise<string> {
  const inboxes = await store.inboxes();
  const rows = await Promise.all(inboxes.map(async (id) => [id, await store.inbox(id).events({ limit: 10_000 })]));
  return JSON.stringify(rows);
}

describe('fuzz: webhooks over HTTP', () => {
  const apps = useHttpApps();

  it('only 200/202/400/401/404/413; refusals are JSON errors and store nothing; a 202 stores the body once', async () => {
    const t = await apps.make({ maxBodyBytes: MAX_BODY });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const headers = new Headers();
        const signature = sign(r.source, r.body, r.signature, r.garbage);
        if (signature !== undefined) {
          headers.set(casing('x-hub-signature-256', r.flips), signature);
          headers.set(casing('x-acme-signature', r.flips), signature);
        }
        if (r.delivery !== undefined) {
          headers.set(casing('x-github-delivery', r.flips), r.delivery);
          headers.set(casing('x-acme-delivery', r.flips), r.delivery);
        }
        if (r.contentType !== '') headers.set(casing('content-type', r.flips), r.contentType);
        const before = await snapshot(t.store);
        const res = await t.request(`/hooks/${r.inbox}/${r.source}`, { method: 'POST', body: r.body, headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(ALLOWED, `status ${res.status} for ${await res.clone().text()}`).toContain(res.status);
        const text = await res.text();
        const json = JSON.parse(text) as { error?: { code?: unknown; message?: unknown }; stored?: unknown };
        if (res.status >= 300) {
          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
          expect(Object.keys(json)).toEqual(['error']);
          expect(typeof json.error?.code).toBe('string');
          expect((json.error!.code as string).length).toBeGreaterThan(0);
          expect(typeof json.error?.message).toBe('string');
          expect(await snapshot(t.store)).toBe(before);
          return;
        }
        // Only a valid signature on a configured source gets this far.
        expect(['github', 'acme']).toContain(r.source);
        const inboxId = decodeURIComponent(r.inbox);
        // The key is stored as the sender wrote it: header bytes read as UTF-8 (src/http/header-values.ts).
        const event = await t.store.inbox(inboxId).getEvent(r.source, headerText(headers.get('x-github-delivery')!, 'x-github-delivery'));
        expect(event).not.toBeNull();
        if (res.status === 202) {
          expect(json).toEqual({ stored: true });
          expect(event!.payload).toEqual(JSON.parse(Buffer.from(r.body).toString('utf8')));
        } else {
          expect(json).toEqual({ stored: false, duplicate: true });
          expect(await snapshot(t.store)).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    console.log(`webhook fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect(statuses.get(202) ?? 0).toBeGreaterThan(10);
    expect(statuses.get(401) ?? 0).toBeGreaterThan(5);
  });
});
