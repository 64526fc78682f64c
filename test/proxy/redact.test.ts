/**
 * The proxy's log redaction on its own: every configured credential and
 * the admin token are cut out of any text, a secret that contains another
 * is cut whole, and a thrown value becomes one line with its cause chain.
 * (Through a real `vigil proxy`: proxy-log-redaction.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { parseProxyConfig, resolveProxyConfig } from '../../src/proxy/index.js';
import { describeError, REDACTED, redactor } from '../../src/proxy/redact.js';

const SHORT = 'Bearer tok-0123456789';
// Contains SHORT: cutting SHORT first would leave "…-extra" behind.
const LONG = `${SHORT}-extra-suffix`;
const ADMIN = 'admin-token-abcdefghijklmnopqrstuvwxyz';

function config(adminToken: string | undefined) {
  return resolveProxyConfig(
    parseProxyConfig({
      ...(adminToken === undefined ? {} : { adminToken }),
      upstreams: {
        a: { url: 'https://a.example', header: 'authorization', value: SHORT, paths: ['/'] },
        b: { url: 'https://b.example', header: 'x-api-key', value: LONG, paths: ['/'] },
      },
    }),
    {},
  );
}

describe('redactor', () => {
  it('cuts every credential and the admin token, every time each occurs', () => {
    const redact = redactor(config(ADMIN));
    expect(redact(`a=${SHORT} b=${LONG} admin=${ADMIN} again=${SHORT}`)).toBe(`a=${REDACTED} b=${REDACTED} admin=${REDACTED} again=${REDACTED}`);
    expect(REDACTED).toBe('[redacted]');
  });

  it('cuts a secret that contains another whole, whichever order the config lists them in', () => {
    expect(redactor(config(undefined))(`key ${LONG}.`)).toBe(`key ${REDACTED}.`);
  });

  it('leaves text without a secret alone, and works without an admin token', () => {
    const redact = redactor(config(undefined));
    expect(redact('nothing secret here')).toBe('nothing secret here');
    expect(redact(ADMIN)).toBe(ADMIN);
    expect(redact('')).toBe('');
  });
});

describe('describeError', () => {
  const keep = (text: string): string => text;

  it('one line: name, code and message, then each cause after " <- "', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const error = new TypeError('fetch failed', { cause: root });
    expect(describeError(error, keep)).toBe('TypeError: fetch failed <- Error ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9');
  });

  it('a thrown value that is not an Error is shown as text, and ends the chain', () => {
    expect(describeError('plain text', keep)).toBe('plain text');
    expect(describeError(new Error('outer', { cause: 42 }), keep)).toBe('Error: outer <- 42');
    expect(describeError(new Error('outer', { cause: { toString: () => 'an object' } }), keep)).toBe('Error: outer <- an object');
  });

  it('stops at a null or missing cause, and after five links of a longer (or circular) chain', () => {
    expect(describeError(new Error('only', { cause: null }), keep)).toBe('Error: only');
    expect(describeError(null, keep)).toBe('');
    expect(describeError(undefined, keep)).toBe('');
    const loop = new Error('again');
    (loop as { cause?: unknown }).cause = loop;
    expect(describeError(loop, keep)).toBe(Array(5).fill('Error: again').join(' <- '));
  });

  it('redacts the whole line, causes included', () => {
    const error = new Error('failed', { cause: new Error(`sent authorization: ${SHORT}`) });
    expect(describeError(error, redactor(config(undefined)))).toBe(`Error: failed <- Error: sent authorization: ${REDACTED}`);
  });
});
