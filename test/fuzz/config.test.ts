/**
 * Fuzz: the service config. Mutations of a valid config (wrong types,
 * unknown keys, bad ports and source types, `env:` secrets of unset
 * variables) through parseConfig, and the same written to a .json file
 * through loadConfig: the only outcomes are a parsed config or a
 * ConfigError whose every issue names a field. Secrets are read with the
 * config: a parsed config holds each of them read, as a string, and an
 * unreadable one is a ConfigError issue naming its field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load-config.js';
import type { ServiceConfig } from '../../src/config/resolve-config.js';
import { outcomeOf, type Outcome } from './fuzz-kit.js';

const ENV = { FUZZ_SET: 'a-secret-long-enough-0123456789abcdef' } as NodeJS.ProcessEnv;

function validBase(): Record<string, unknown> {
  return {
    store: 'sqlite:./data',
    host: '127.0.0.1',
    port: 8787,
    token: 'env:FUZZ_SET',
    sources: {
      github: { type: 'github', secret: 'gh-secret-long-enough-0123456789abcdef' },
      acme: { type: 'hmac', secret: 'env:FUZZ_SET', signatureHeader: 'x-acme-signature', keyHeader: 'x-acme-delivery' },
      pay: { type: 'stripe', secret: 'whsec_long_enough_0123456789abcdef0123', toleranceSeconds: 300 },
    },
    channels: { console: {} },
    workers: { concurrency: 2, runTimeoutMs: 1000 },
    engine: { outboxGapMs: 5000, retryBackoff: { baseMs: 10 } },
    maxBodyBytes: 4096,
    log: { level: 'info' },
  };
}

const PATHS = [
  'store',
  'host',
  'port',
  'token',
  'linkSecret',
  'publicUrl',
  'agent',
  'proxy',
  'proxy.url',
  'sources',
  'sources.github',
  'sources.github.type',
  'sources.github.secret',
  'sources.acme.signatureHeader',
  'sources.acme.keyHeader',
  'sources.pay.toleranceSeconds',
  'sources.timer',
  'sources.Upper',
  'sources.__proto__',
  'sources.constructor',
  'channels',
  'channels.webhook',
  'channels.webhook.url',
  'channels.email',
  'channels.email.port',
  'channels.console.extra',
  'workers.concurrency',
  'workers.shutdownGraceMs',
  'engine.leaseTtlMs',
  'engine.retryBackoff.maxMs',
  'engine.unknown',
  'maxBodyBytes',
  'log.level',
  'unknownKey',
];

const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(0, -1, 1.5, 65535, 65536, 2 ** 53, '8787', '', null, true, [], {}, 'env:', 'env:FUZZ_UNSET_VAR', 'env:FUZZ_SET') },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('github', 'gitlab', 'hmac', 'postgres://u@h/db', 'sqlite:', 'mysql://x', 'http://ok.example', 'not a url', 'debug', 'loud') },
  { weight: 2, arbitrary: fc.constantFrom<unknown>({ type: 'github', secret: 'env:FUZZ_UNSET_VAR' }, { type: 'slack', secret: 's' }, { type: 'nope', secret: 's' }, { secret: 's' }, { type: 'hmac', secret: 's', extra: 1 }) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

type Mutation = { kind: 'set'; path: string; value: unknown } | { kind: 'delete'; path: string };
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ path: fc.constantFrom(...PATHS), value: valueArb }).map((m) => ({ kind: 'set' as const, ...m })) },
  { weight: 1, arbitrary: fc.constantFrom(...PATHS).map((path) => ({ kind: 'delete' as const, path })) },
);

function apply(config: Record<string, unknown>, mutation: Mutation): void {
  const parts = mutation.path.split('.');
  let node = config;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      Object.defineProperty(node, part, { value: {}, enumerable: true, writable: true, configurable: true });
    }
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  // defineProperty: a key named __proto__ is an own key, as JSON.parse would make it.
  if (mutation.kind === 'set') Object.defineProperty(node, last, { value: mutation.value, enumerable: true, writable: true, configurable: true });
  else delete node[last];
}

/** A ConfigError whose every issue starts with the field it is about. */
function expectConfigError(outcome: Outcome<unknown>): ConfigError {
  if (outcome.ok) throw new Error('expected a ConfigError');
  const error = outcome.error;
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`, { cause: error });
  // `<field>: <message>`; the field is printed as given, so an unknown key named "" or ":" prints as such.
  for (const issue of error.issues) expect(issue, `issue names no field: ${issue}`).toMatch(/^.*: \S/s);
  return error;
}

/** Every secret of a parsed config is read: a string, never "env:…" left for later. */
function checkSecrets(config: ServiceConfig): void {
  expect(config.token === undefined || (typeof config.token === 'string' && !config.token.startsWith('env:'))).toBe(true);
  for (const source of Object.values(config.sources)) {
    const secret = typeof source.secret === 'string' ? source.secret : source.secret.derive;
    expect(typeof secret === 'string' && !secret.startsWith('env:')).toBe(true);
  }
}

describe('fuzz: config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-fuzz-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;

  it('parseConfig and loadConfig give a config or a ConfigError naming fields; secrets resolve or name their field', async () => {
    let parsed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { maxLength: 4 }), fc.boolean(), async (mutations, viaFile) => {
        const raw = validBase();
        for (const mutation of mutations) apply(raw, mutation);
        const direct = await outcomeOf(() => parseConfig(raw, 'fuzz config', ENV));
        if (direct.ok) {
          parsed += 1;
          checkSecrets(direct.value);
        } else {
          refused += 1;
          expect(expectConfigError(direct).issues.length).toBeGreaterThan(0);
        }
        if (!viaFile) return;
        const json = JSON.stringify(raw);
        files += 1;
        const file = join(dir, `config-${files}.json`);
        writeFileSync(file, json);
        const loaded = await outcomeOf(() => loadConfig(file, dir, ENV));
        const expected = await outcomeOf(() => parseConfig(JSON.parse(json), 'fuzz config', ENV));
        expect(loaded.ok).toBe(expected.ok);
        if (!loaded.ok) expectConfigError(loaded);
      }),
      { numRuns: 250 },
    );
    console.log(`config fuzz: ${parsed} parsed, ${refused} refused`);
    expect(parsed).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });

  it('a config file that is not JSON, or not an object, is a ConfigError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v))), async (text) => {
        files += 1;
        const file = join(dir, `text-${files}.json`);
        writeFileSync(file, text);
        const loaded = await outcomeOf(() => loadConfig(file, dir, ENV));
        if (!loaded.ok) expectConfigError(loaded);
      }),
      { numRuns: 150 },
    );
  });
});
