/**
 * Fuzz: correctly signed webhook bodies of any shape, through the real Hono
 * app on a real SQLite store, at an inbox in the path and at a routed URL:
 * deep nesting (up to thousands of levels), long strings, odd Unicode (lone
 * surrogates as escapes, NUL, astral characters, raw control characters),
 * duplicate keys, and text that is almost JSON. A valid signature takes a
 * body past every check the sender can fail by accident, so this is what
 * reaches the parser, the router and the store. The answer is never a 5xx;
 * a 4xx stores nothing; a 202 stores what JSON.parse makes of the body, once.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { SECRETS, useHttpApps } from '../http/http-harness.js';
import { nastyString } from './fuzz-kit.js';

const MAX_BODY = 64 * 1024;

/** A value nested `depth` levels deep, in a mix of arrays and objects. */
const deep = fc.record({ depth: fc.integer({ min: 1, max: 3000 }), kinds: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), leaf: fc.jsonValue({ maxDepth: 1 }) }).map(({ depth, kinds, leaf }) => {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = kinds[i % kinds.length];
    open += array ? '[' : '{"k":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}${JSON.stringify(leaf) ?? 'null'}${close}`;
});

/** Keys said twice (JSON.parse keeps the last), at the top and inside. */
const duplicateKeys = fc.tuple(fc.constantFrom('a', 'sender', '__proto__', 'constructor', ''), fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 })).map(
  ([key, first, second]) => `{${JSON.stringify(key)}:${JSON.stringify(first) ?? 'null'},"sender":{"login":"dup","login":"twice"},${JSON.stringify(key)}:${JSON.stringify(second) ?? 'null'}}`,
);

/** Strings with what JSON can carry only escaped, written both ways. */
const oddText = fc.oneof(
  nastyString().map((text) => JSON.stringify({ text, sender: { login: text } })),
  fc.constantFrom('"\\ud800"', '{"a":"\\udc00\\ud800"}', '{"nul":"\\u0000"}', '{"raw":"tab\there"}', '"\u2028\u2029"', '{"emoji":"😀","astral":"\\ud83d\\ude00"}', '{"bom":"\ufeff"}'),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const longStrings = fc.integer({ min: 1_000, max: MAX_BODY + 2_000 }).map((n) => JSON.stringify({ sender: { login: 'long' }, text: 'x'.repeat(n) }));

const almostJson = fc.oneof(
  fc.constantFrom('', '{', '[', '{"a":}', '{"a":1,}', 'NaN', '1e999', '{"a":1}{"b":2}', '[' .repeat(70) + ']'.repeat(69), 'null', 'true', '"string"', '[]'),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
);

const bodyText = fc.oneof(
  { weight: 3, arbitrary: deep },
  { weight: 2, arbitrary: duplicateKeys },
  { weight: 3, arbitrary: oddText },
  { weight: 1, arbitrary: longStrings },
  { weight: 2, arbitrary: almostJson },
);

const requestArb = fc.record({
  text: bodyText,
  path: fc.constantFrom('/hooks/alice/github', '/hooks/routed'),
  delivery: fc.integer({ min: 1, max: 400 }).map((n) => `d-${n}`),
});

async function snapshot(store: Store): Promise<string> {
  const inboxes = await store.inboxes();
  return JSON.stringify(await Promise.all(inboxes.map(async (id) => [id, await store.inbox(id).events({ limit: 10_000 })])));
}

describe('fuzz: signed bodies of any shape', () => {
  const apps = useHttpApps();

  it('are answered 2xx or 4xx, never 5xx; a 4xx stores nothing; a 202 stores the parsed body once', async () => {
    const t = await apps.make({
      maxBodyBytes: MAX_BODY,
      sources: {
        github: { type: 'github', secret: SECRETS.github },
        routed: { type: 'github', secret: SECRETS.github, inbox: { from: 'sender.login', prefix: 'u-' } },
      },
    });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ text, path, delivery }) => {
        const body = Buffer.from(text, 'utf8');
        const headers = { 'content-type': 'application/json', 'x-github-delivery': delivery, 'x-hub-signature-256': 'sha256=' + createHmac('sha256', SECRETS.github).update(body).digest('hex') };
        const before = await snapshot(t.store);
        const res = await t.request(path, { method: 'POST', body, headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const answer = await res.text();
        expect(res.status, `${res.status} ${answer.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(Object.keys(JSON.parse(answer) as object)).toEqual(['error']);
          expect(await snapshot(t.store)).toBe(before);
          return;
        }
        if (res.status === 202) {
          const inboxId = path === '/hooks/routed' ? `u-${(JSON.parse(text) as { sender: { login: string } }).sender.login}` : 'alice';
          const event = await t.store.inbox(inboxId).getEvent(path === '/hooks/routed' ? 'routed' : 'github', delivery);
          expect(event?.payload).toEqual(JSON.parse(text));
        } else {
          expect(res.status).toBe(200);
          expect(await snapshot(t.store)).toBe(before);
        }
      }),
      { numRuns: 400 },
    );
    console.log(`signed-body fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect(statuses.get(202) ?? 0).toBeGreaterThan(20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(20);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(5);
  });
});
