/** The proxy config: every bad field named at once, secrets resolved at startup, and a bad credential never quoted. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { isVigilError } from '../../src/index.js';
import { MIN_ADMIN_TOKEN_LENGTH } from '../../src/proxy/config.js';
import { loadProxyConfig, parseProxyConfig, resolveProxyConfig } from '../../src/proxy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function writeConfig(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-proxy-config-'));
  dirs.push(dir);
  const file = join(dir, 'proxy.json');
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

const GOOD = { upstreams: { github: { url: 'https://api.github.com', header: 'Authorization', value: 'env:GH', methods: ['get', 'POST'], paths: ['/repos/'] } } };

describe('proxy config', () => {
  it('defaults: 127.0.0.1:8788, 1 MiB bodies, GET only; header names lowercased, methods uppercased', () => {
    const config = resolveProxyConfig(parseProxyConfig(GOOD), { GH: 'Bearer t' });
    expect([config.host, config.port, config.maxBodyBytes, config.adminToken]).toEqual(['127.0.0.1', 8788, 1_048_576, undefined]);
    const github = config.upstreams.get('github')!;
    expect([github.header, [...github.methods], github.value, github.origin]).toEqual(['authorization', ['GET', 'POST'], 'Bearer t', 'https://api.github.com']);
    const minimal = parseProxyConfig({ upstreams: { a: { url: 'http://127.0.0.1:1/', header: 'x-key', value: 'k', paths: ['/'] } } });
    expect(minimal.upstreams.a!.methods).toEqual(['GET']);
  });

  it('names every bad field at once', () => {
    const message = messageOf(() =>
      parseProxyConfig({
        port: 'eighty',
        colour: 'blue',
        upstreams: {
          'Bad Name': { url: 'https://x', header: 'a', value: 'v', paths: ['/'] },
          gh: { url: 'ftp://x.example', header: 'host', value: '', methods: ['FETCH'], paths: ['repos/'] },
          creds: { url: 'https://user:pw@api.example/?a=1', header: 'x-key', value: 'v', paths: [] },
          missing: { url: 'https://api.example' },
        },
      }),
    );
    for (const expected of [
      'port:',
      'colour: unknown key',
      'upstreams.Bad Name: upstream names are lowercase',
      'upstreams.gh.url: must be an http:// or https:// URL',
      'upstreams.gh.header: must not be one of',
      'upstreams.gh.value: must not be empty',
      'upstreams.gh.methods.0:',
      'upstreams.gh.paths.0: must start with "/"',
      'upstreams.creds.url: must not contain credentials',
      'upstreams.creds.paths: list at least one path prefix',
      'upstreams.missing.header: required',
      'upstreams.missing.value: required',
      'upstreams.missing.paths: required',
    ]) {
      expect(message).toContain(expected);
    }
  });

  it('an unset env variable is an invalid_options error naming the field', () => {
    let caught: unknown;
    try {
      resolveProxyConfig(parseProxyConfig(GOOD), {});
    } catch (error) {
      caught = error;
    }
    expect(isVigilError(caught, 'invalid_options')).toBe(true);
    expect((caught as Error).message).toMatch(/^upstreams\.github\.value: environment variable GH is not set/);
  });

  it(`an adminToken shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters is refused at startup, without being quoted`, () => {
    const short = 'short-admin-secret-123';
    const message = messageOf(() => resolveProxyConfig(parseProxyConfig({ ...GOOD, adminToken: 'env:ADMIN' }), { GH: 'Bearer t', ADMIN: short }));
    expect(message).toContain(`adminToken: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
    expect(message).not.toContain(short);
    const long = 'x'.repeat(MIN_ADMIN_TOKEN_LENGTH);
    expect(resolveProxyConfig(parseProxyConfig({ ...GOOD, adminToken: long }), { GH: 'Bearer t' }).adminToken).toBe(long);
  });

  it('a credential that is not a valid header value is refused without being quoted', () => {
    for (const value of ['Bearer abc\r\nx-evil: 1', ' padded-secret ', 'tab\u0000nul']) {
      const message = messageOf(() => resolveProxyConfig(parseProxyConfig(GOOD), { GH: value }));
      expect(message).toContain('upstreams.github.value');
      expect(message).not.toContain(value.trim());
    }
  });

  it('loadProxyConfig reads JSON and reports unreadable or invalid files as ConfigError', async () => {
    const admin = 'a'.repeat(MIN_ADMIN_TOKEN_LENGTH);
    const config = await loadProxyConfig(writeConfig({ ...GOOD, adminToken: 'env:ADMIN' }), { GH: 'Bearer t', ADMIN: admin });
    expect(config.adminToken).toBe(admin);
    await expect(loadProxyConfig(writeConfig('{ nope'), {})).rejects.toThrow(/is not valid JSON/);
    // A syntax error next to an inline credential: the message gives the position, not the text around it.
    const inline = loadProxyConfig(writeConfig('{ "upstreams": { "a": { "value": "Bearer inline-secret-xyz", } } }'), {});
    await expect(inline).rejects.toThrow(/is not valid JSON \(at position \d+/);
    await expect(inline).rejects.not.toThrow(/inline-secret-xyz/);
    await expect(loadProxyConfig(join(tmpdir(), 'vigil-no-such-proxy-config.json'), {})).rejects.toBeInstanceOf(ConfigError);
    await expect(loadProxyConfig(writeConfig({ upstreams: {}, port: -1 }), {})).rejects.toThrow(/port:/);
  });
});
