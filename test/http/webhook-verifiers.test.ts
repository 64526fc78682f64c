/**
 * The webhook verifiers on their own, edge by edge: where a signature
 * header may be malformed, where a timestamp stops being fresh, which body
 * fields make a key, and the exact refusal each one gives. The promises per
 * provider through the HTTP app are in webhook-providers.test.ts; these
 * pin the details those cannot reach (found by mutation testing, TESTING.md).
 */
import { describe, expect, it } from 'vitest';
import { createSource, createSources, WebhookRejected } from '../../src/http/webhooks/index.js';
import { fromHex, hmacSha256, sameBytes } from '../../src/crypto.js';
import { githubVerifier } from '../../src/http/webhooks/github.js';
import { perInboxSecret } from '../../src/http/webhooks/source-secret.js';
import { hmacVerifier } from '../../src/http/webhooks/hmac.js';
import { slackVerifier } from '../../src/http/webhooks/slack.js';
import { standardWebhooksKey, standardWebhooksVerifier } from '../../src/http/webhooks/standard-webhooks.js';
import { stripeVerifier } from '../../src/http/webhooks/stripe.js';
import { checkFresh, parseSeconds, stringField } from '../../src/http/webhooks/verifier.js';

const SECRET = 'verifier-test-secret';
const BODY = Buffer.from('{"id":"evt_1","event_id":"Ev1"}');
const NOW = 1_700_000_000_000;
const SECONDS = NOW / 1000;
const hex = (...parts: (string | Buffer)[]) => hmacSha256(SECRET, ...parts).toString('hex');

/** The rejection `run` throws: its reason and message. */
function rejection(run: () => unknown): { reason: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookRejected);
    expect((error as Error).name).toBe('WebhookRejected');
    return { reason: (error as WebhookRejected).reason, message: (error as Error).message };
  }
  throw new Error('expected a WebhookRejected, nothing was thrown');
}

const BAD = { reason: 'bad_signature', message: 'the signature does not match the body' };

describe('the shared pieces', () => {
  it('fromHex takes exactly 64 hex digits, either case', () => {
    const digest = 'ab'.repeat(32);
    expect(fromHex(digest)?.toString('hex')).toBe(digest);
    expect(fromHex(digest.toUpperCase())?.toString('hex')).toBe(digest);
    expect(fromHex(digest.slice(2))).toBeNull();
    expect(fromHex(`${digest}00`)).toBeNull();
    expect(fromHex(`x${digest.slice(1)}`)).toBeNull();
    expect(fromHex(`${digest.slice(1)}g`)).toBeNull();
  });

  it('sameBytes: equal bytes only, and a different length is simply false', () => {
    expect(sameBytes(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
    expect(sameBytes(Buffer.from('abc'), Buffer.from('abd'))).toBe(false);
    expect(sameBytes(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
  });

  it('parseSeconds: 1 to 12 digits, nothing else', () => {
    expect(parseSeconds('0', 'T')).toBe(0);
    expect(parseSeconds('999999999999', 'T')).toBe(999_999_999_999);
    for (const bad of ['', '1000000000000', '-1', '1.5', ' 1', '1 ', '1e3', 'abc']) {
      expect(rejection(() => parseSeconds(bad, 'X-Time')), bad).toEqual({ reason: 'bad_signature', message: 'the X-Time timestamp is not a Unix time in seconds' });
    }
  });

  it('checkFresh: within the tolerance either way passes, a second past it is stale, with the skew in the message', () => {
    expect(() => checkFresh(SECONDS - 300, NOW, 300)).not.toThrow();
    expect(() => checkFresh(SECONDS + 300, NOW, 300)).not.toThrow();
    expect(rejection(() => checkFresh(SECONDS - 301, NOW, 300))).toEqual({
      reason: 'stale_timestamp',
      message: 'the signed timestamp is 301s away from now; the tolerance is 300s',
    });
    expect(rejection(() => checkFresh(SECONDS + 302, NOW + 400, 300)).message).toBe('the signed timestamp is 302s away from now; the tolerance is 300s');
    expect(rejection(() => checkFresh(SECONDS + 301, NOW, 300)).reason).toBe('stale_timestamp');
  });

  it('stringField: a non-empty string field of a plain object, else undefined', () => {
    expect(stringField({ id: 'x' }, 'id')).toBe('x');
    for (const payload of [{ id: '' }, { id: 1 }, { other: 'x' }, null, 'id', ['x'], Object.assign(['x'], { id: 'x' })]) {
      expect(stringField(payload, 'id'), JSON.stringify(payload)).toBeUndefined();
    }
  });
});

describe('github', () => {
  const v = githubVerifier(SECRET);
  const headers = (signature: string | null) => new Headers(signature === null ? {} : { 'x-hub-signature-256': signature });

  it('accepts sha256=<hex> of the body; anything else is refused', () => {
    expect(() => v.verify(BODY, headers(`sha256=${hex(BODY)}`), NOW)).not.toThrow();
    expect(rejection(() => v.verify(BODY, headers(null), NOW))).toEqual({ reason: 'missing_signature', message: 'the x-hub-signature-256 header is missing' });
    expect(rejection(() => v.verify(BODY, headers(''), NOW)).reason).toBe('missing_signature');
    // sha512= is as long as sha256=: only the exact prefix is read past.
    for (const bad of [hex(BODY), `sha1=${hex(BODY)}`, `sha512=${hex(BODY)}`, `sha256=${hex('other')}`, 'sha256=zz']) {
      expect(rejection(() => v.verify(BODY, headers(bad), NOW)), bad).toEqual(BAD);
    }
  });

  it('the key is X-GitHub-Delivery; empty or missing is no key', () => {
    expect(v.key(new Headers({ 'x-github-delivery': 'd-1' }), {})).toBe('d-1');
    expect(v.key(new Headers({ 'x-github-delivery': '' }), {})).toBeUndefined();
    expect(v.key(new Headers(), {})).toBeUndefined();
    expect(v.keyName).toBe('the X-GitHub-Delivery header');
  });
});

describe('hmac', () => {
  const v = hmacVerifier(SECRET, { signatureHeader: 'x-signature', keyHeader: 'x-delivery-id' });

  it('accepts the hex HMAC, with or without sha256=, around spaces; refuses the rest', () => {
    expect(() => v.verify(BODY, new Headers({ 'x-signature': hex(BODY) }), NOW)).not.toThrow();
    expect(() => v.verify(BODY, new Headers({ 'x-signature': `sha256=${hex(BODY)}` }), NOW)).not.toThrow();
    expect(() => v.verify(BODY, new Headers({ 'x-signature': ` ${hex(BODY)} ` }), NOW)).not.toThrow();
    expect(rejection(() => v.verify(BODY, new Headers(), NOW))).toEqual({ reason: 'missing_signature', message: 'the x-signature header is missing' });
    expect(rejection(() => v.verify(BODY, new Headers({ 'x-signature': hex('other') }), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, new Headers({ 'x-signature': `sha1=${hex(BODY)}` }), NOW))).toEqual(BAD);
  });

  it('the key is the configured header', () => {
    expect(v.key(new Headers({ 'x-delivery-id': 'k' }), {})).toBe('k');
    expect(v.key(new Headers({ 'x-delivery-id': '' }), {})).toBeUndefined();
    expect(v.keyName).toBe('the x-delivery-id header');
  });
});

describe('stripe', () => {
  const v = stripeVerifier(SECRET, 300);
  const sig = (t: number | string) => hex(`${t}.`, BODY);
  const check = (header: string, now = NOW) => () => v.verify(BODY, new Headers({ 'stripe-signature': header }), now);

  it('t=…,v1=…: accepted; spaces around parts and entries without "=" are ignored; any one of several v1 may match', () => {
    expect(check(`t=${SECONDS},v1=${sig(SECONDS)}`)).not.toThrow();
    expect(check(` t = ${SECONDS} , junk , v0=abc, v1 = ${sig(SECONDS)} `)).not.toThrow();
    expect(check(`t=${SECONDS},v1=${'0'.repeat(64)},v1=nothex,v1=${sig(SECONDS)}`)).not.toThrow();
    expect(check(`t=${SECONDS},v1=${sig(SECONDS)},v1=${'0'.repeat(64)}`)).not.toThrow();
    // An entry without "=" is no entry: "tt" must not be read as a timestamp.
    expect(check(`t=${SECONDS},v1=${sig(SECONDS)},tt`)).not.toThrow();
  });

  it('no t, no v1, a v1 that does not match, or a bad t: bad_signature; a missing header: missing_signature', () => {
    expect(rejection(check(`v1=${sig(SECONDS)}`))).toEqual(BAD);
    expect(rejection(check(`t=${SECONDS}`))).toEqual(BAD);
    expect(rejection(check(`t=${SECONDS},v0=${sig(SECONDS)}`))).toEqual(BAD);
    expect(rejection(check(`t=${SECONDS},v1=${sig(SECONDS + 1)}`))).toEqual(BAD);
    expect(rejection(check(`t=${SECONDS}x,v1=${sig(`${SECONDS}x`)}`)).message).toBe('the Stripe-Signature timestamp is not a Unix time in seconds');
    expect(rejection(() => v.verify(BODY, new Headers(), NOW)).reason).toBe('missing_signature');
  });

  it('signed but outside the tolerance: stale_timestamp (checked after the signature)', () => {
    expect(rejection(check(`t=${SECONDS - 301},v1=${sig(SECONDS - 301)}`)).reason).toBe('stale_timestamp');
    expect(rejection(check(`t=${SECONDS - 301},v1=${sig(SECONDS)}`))).toEqual(BAD);
  });

  it('the key is the body\'s id', () => {
    expect(v.key(new Headers(), { id: 'evt_1' })).toBe('evt_1');
    expect(v.key(new Headers(), { event_id: 'evt_1' })).toBeUndefined();
    expect(v.keyName).toBe('the event id ("id") in the body');
  });
});

describe('standard webhooks', () => {
  const KEY_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const v = standardWebhooksVerifier(KEY_SECRET, 300);
  const key = standardWebhooksKey(KEY_SECRET);
  const sig = (id: string, t: number) => hmacSha256(key, `${id}.${t}.`, BODY).toString('base64');
  const headers = (signature: string, id = 'msg_1', t = SECONDS) => new Headers({ 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': signature });

  it('the key: base64 after whsec_ (or without it); anything else is a config error', () => {
    expect(standardWebhooksKey(KEY_SECRET).toString()).toBe('0123456789abcdef0123456789abcdef');
    expect(standardWebhooksKey(KEY_SECRET.slice('whsec_'.length)).toString()).toBe('0123456789abcdef0123456789abcdef');
    // Padding: none, one or two "=".
    expect(standardWebhooksKey('whsec_YWJj').toString()).toBe('abc');
    expect(standardWebhooksKey('whsec_YWI=').toString()).toBe('ab');
    expect(standardWebhooksKey('whsec_YQ==').toString()).toBe('a');
    for (const bad of ['whsec_', 'whsec_!!!!', 'whsec_abc$', 'whsec_ab==c', 'whsec_YQ===']) {
      expect(() => standardWebhooksKey(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_options', message: 'a Standard Webhooks secret is "whsec_" followed by base64' }));
    }
  });

  it('v1,<base64> over id.timestamp.body: accepted among others; other versions and wrong ids are not', () => {
    expect(() => v.verify(BODY, headers(`v1,${sig('msg_1', SECONDS)}`), NOW)).not.toThrow();
    expect(() => v.verify(BODY, headers(`v2,${sig('msg_1', SECONDS)} v1 v1,${sig('msg_1', SECONDS)}`), NOW)).not.toThrow();
    expect(() => v.verify(BODY, headers(`v1,${sig('msg_1', SECONDS)} v1,AAAA`), NOW)).not.toThrow();
    expect(rejection(() => v.verify(BODY, headers(`v2,${sig('msg_1', SECONDS)}`), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, headers(`v1,${sig('msg_2', SECONDS)}`), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, headers(`v1,${sig('msg_1', SECONDS - 400)}`, 'msg_1', SECONDS - 400), NOW)).reason).toBe('stale_timestamp');
    const late = headers(`v1,${sig('msg_1', SECONDS)}`);
    late.set('webhook-timestamp', 'later');
    expect(rejection(() => v.verify(BODY, late, NOW)).message).toBe('the webhook-timestamp timestamp is not a Unix time in seconds');
  });

  it('each header is required', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const h = headers(`v1,${sig('msg_1', SECONDS)}`);
      h.delete(name);
      const svixName = name.replace('webhook-', 'svix-');
      expect(rejection(() => v.verify(BODY, h, NOW)), name).toEqual({ reason: 'missing_signature', message: `the ${name} header (or ${svixName}) is missing` });
    }
  });

  it('the key is webhook-id, or svix-id when that is sent', () => {
    expect(v.key(new Headers({ 'webhook-id': 'msg_1' }), {})).toBe('msg_1');
    expect(v.key(new Headers({ 'webhook-id': '' }), {})).toBeUndefined();
    expect(v.key(new Headers({ 'svix-id': 'msg_2' }), {})).toBe('msg_2');
    expect(v.key(new Headers({ 'svix-id': '', 'webhook-id': 'msg_3' }), {})).toBe('msg_3');
    expect(v.keyName).toBe('the webhook-id (or svix-id) header');
  });

  it('Svix\'s default names svix-id/-timestamp/-signature are read first, and either name may carry each header', () => {
    const svix = (signature: string, id = 'msg_1', t = SECONDS) => new Headers({ 'svix-id': id, 'svix-timestamp': String(t), 'svix-signature': signature });
    expect(() => v.verify(BODY, svix(`v1,${sig('msg_1', SECONDS)}`), NOW)).not.toThrow();
    expect(rejection(() => v.verify(BODY, svix(`v1,${sig('msg_2', SECONDS)}`), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, svix(`v1,${sig('msg_1', SECONDS - 400)}`, 'msg_1', SECONDS - 400), NOW)).reason).toBe('stale_timestamp');
    const late = svix(`v1,${sig('msg_1', SECONDS)}`);
    late.set('svix-timestamp', 'later');
    expect(rejection(() => v.verify(BODY, late, NOW)).message).toBe('the svix-timestamp timestamp is not a Unix time in seconds');
    // The same values under both names, or some under each (as the svix library reads them): accepted.
    const both = svix(`v1,${sig('msg_1', SECONDS)}`);
    for (const [name, value] of [...both.entries()]) both.set(name.replace('svix-', 'webhook-'), value);
    expect(() => v.verify(BODY, both, NOW)).not.toThrow();
    const mixed = headers(`v1,${sig('msg_1', SECONDS)}`);
    mixed.delete('webhook-id');
    mixed.set('svix-id', 'msg_1');
    expect(() => v.verify(BODY, mixed, NOW)).not.toThrow();
  });

  it('svix-* and webhook-* that disagree are refused, whichever one the signature covers', () => {
    for (const part of ['id', 'timestamp', 'signature']) {
      // The webhook-* set is signed and valid; a svix-* header beside it says something else.
      const h = headers(`v1,${sig('msg_1', SECONDS)}`);
      h.set(`svix-${part}`, part === 'timestamp' ? String(SECONDS + 1) : part === 'id' ? 'msg_9' : `v1,${sig('msg_9', SECONDS)}`);
      expect(rejection(() => v.verify(BODY, h, NOW)), part).toEqual({
        reason: 'bad_signature',
        message: `the svix-${part} and webhook-${part} headers disagree; send one of them, or the same value in both`,
      });
    }
    // Signed under svix-id, with another webhook-id beside it: the key could otherwise be read from the unsigned one.
    const svixSigned = new Headers({ 'svix-id': 'msg_1', 'svix-timestamp': String(SECONDS), 'svix-signature': `v1,${sig('msg_1', SECONDS)}`, 'webhook-id': 'msg_other' });
    expect(rejection(() => v.verify(BODY, svixSigned, NOW)).reason).toBe('bad_signature');
  });
});

describe('slack', () => {
  const v = slackVerifier(SECRET, 300);
  const headers = (t: number | string, signature: string, type = 'application/json') =>
    new Headers({ 'x-slack-request-timestamp': String(t), 'x-slack-signature': signature, 'content-type': type });

  it('v0=<hex> over v0:<ts>:<body>; fresh; both headers required', () => {
    expect(() => v.verify(BODY, headers(SECONDS, `v0=${hex(`v0:${SECONDS}:`, BODY)}`), NOW)).not.toThrow();
    expect(rejection(() => v.verify(BODY, headers(SECONDS, hex(`v0:${SECONDS}:`, BODY)), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, headers(SECONDS, `v1=${hex(`v0:${SECONDS}:`, BODY)}`), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, headers(SECONDS, `v0=${hex(`v0:${SECONDS + 1}:`, BODY)}`), NOW))).toEqual(BAD);
    expect(rejection(() => v.verify(BODY, headers(SECONDS - 301, `v0=${hex(`v0:${SECONDS - 301}:`, BODY)}`), NOW)).reason).toBe('stale_timestamp');
    expect(rejection(() => v.verify(BODY, headers('soon', 'v0=00'), NOW)).message).toBe('the X-Slack-Request-Timestamp timestamp is not a Unix time in seconds');
    expect(rejection(() => v.verify(BODY, new Headers({ 'x-slack-signature': 'v0=00' }), NOW)).message).toBe('the x-slack-request-timestamp header is missing');
  });

  it('decodes JSON, a slash command form, and an interaction form (its payload field as JSON)', () => {
    const json = new Headers({ 'content-type': 'application/json' });
    const form = new Headers({ 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' });
    expect(v.decode!(Buffer.from('{"a":1}'), json)).toEqual({ a: 1 });
    expect(v.decode!(Buffer.from('{"a":1}'), new Headers())).toEqual({ a: 1 });
    expect(v.decode!(Buffer.from('command=%2Fask&text=hi&trigger_id=t1'), form)).toEqual({ command: '/ask', text: 'hi', trigger_id: 't1' });
    expect(v.decode!(Buffer.from(`payload=${encodeURIComponent('{"type":"block_actions","trigger_id":"t2"}')}`), form)).toEqual({ type: 'block_actions', trigger_id: 't2' });
    expect(() => v.decode!(Buffer.from('payload=%7Bnot'), form)).toThrow('the form field "payload" is not valid JSON');
  });

  it('the key is event_id, else trigger_id; url_verification is a handshake; forms are acknowledged with an empty 200', async () => {
    expect(v.key(new Headers(), { event_id: 'Ev1', trigger_id: 't1' })).toBe('Ev1');
    expect(v.key(new Headers(), { trigger_id: 't1' })).toBe('t1');
    expect(v.key(new Headers(), {})).toBeUndefined();
    expect(v.keyName).toBe('the event_id (Events API) or trigger_id (slash commands, interactivity) in the body');
    expect(v.handshake!({ type: 'url_verification', challenge: 'c-1' })).toEqual({ challenge: 'c-1' });
    expect(v.handshake!({ type: 'url_verification' })).toEqual({ challenge: '' });
    expect(v.handshake!({ type: 'event_callback', challenge: 'c-1' })).toBeUndefined();
    const ack = v.acknowledge!(new Headers({ 'content-type': 'application/x-www-form-urlencoded' }))!;
    expect(ack.status).toBe(200);
    expect(await ack.text()).toBe('');
    expect(v.acknowledge!(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
    expect(v.acknowledge!(new Headers())).toBeUndefined();
  });
});

describe('createSource(s)', () => {
  const LONG = 'verifier-test-secret-of-32-characters';
  const long = (...parts: (string | Buffer)[]) => hmacSha256(LONG, ...parts).toString('hex');

  it("builds the verifier of each type with its secret and the source's tolerance", () => {
    const github = createSource('gh', { type: 'github', secret: LONG }).verifier(null);
    expect(() => github.verify(BODY, new Headers({ 'x-hub-signature-256': `sha256=${long(BODY)}` }), NOW)).not.toThrow();
    const stripe = createSource('st', { type: 'stripe', secret: LONG, toleranceSeconds: 10 }).verifier(null);
    const t = SECONDS - 11;
    expect(rejection(() => stripe.verify(BODY, new Headers({ 'stripe-signature': `t=${t},v1=${long(`${t}.`, BODY)}` }), NOW)).reason).toBe('stale_timestamp');
    const sources = createSources({ constructor: { type: 'github' as const, secret: LONG } });
    expect([...sources.keys()]).toEqual(['constructor']);
    expect(sources.get('__proto__')).toBeUndefined();
  });

  it("a fixed secret gives one verifier for every inbox; a derived one, each inbox's own, and none without an inbox", () => {
    const fixed = createSource('gh', { type: 'github', secret: LONG });
    expect(fixed.secretKind).toBe('fixed');
    expect(fixed.verifier('alice')).toBe(fixed.verifier(null));
    const perInbox = createSource('gh', { type: 'github', secret: { derive: LONG } });
    expect(perInbox.secretKind).toBe('per-inbox');
    expect(() => perInbox.verifier(null)).toThrow(new TypeError('source gh has a secret per inbox: a delivery to it names its inbox in the path'));
    const alices = `sha256=${hmacSha256(perInboxSecret(LONG, 'gh', 'alice'), BODY).toString('hex')}`;
    expect(() => perInbox.verifier('alice').verify(BODY, new Headers({ 'x-hub-signature-256': alices }), NOW)).not.toThrow();
    expect(rejection(() => perInbox.verifier('bob').verify(BODY, new Headers({ 'x-hub-signature-256': alices }), NOW))).toEqual(BAD);
  });
});
