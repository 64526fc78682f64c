/**
 * Secrets stay out of what Vigil prints (issue 49, finding 5):
 *   - a secret with a control character (a Slack bot token with a newline,
 *     a webhook secret read with its file's last newline) stops `vigil
 *     serve` at startup, naming the key and never the value;
 *   - a store URL is shown through one function (redactStoreUrl) on every
 *     path that can print one: openStore's errors, `vigil serve`'s failed
 *     startup (from the config and from --store), the CLI's commands. Fed a
 *     URL that does not parse (with `?password=` in it) and a password with
 *     an unencoded '@' and '/' (which every parser reads as a host made of
 *     the password's tail: "getaddrinfo ENOTFOUND <tail>").
 */
import { describe, expect, it, afterAll } from 'vitest';
import { isVigilError, openStore } from '../../src/index.js';
import { redactStoreUrl, storeUrlProblem } from '../../src/store/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
afterAll(() => harness.cleanup());

/** Each URL and the pieces of its secrets that must never be printed. */
const URLS: Array<{ what: string; url: string; secrets: string[] }> = [
  {
    what: 'a URL that does not parse, ?password= and all',
    url: 'postgres://vigil:Pw-OneSecret@db.example:notaport/vigil?password=Pw-TwoSecret&sslpassword=Pw-ThreeSecret',
    secrets: ['Pw-OneSecret', 'Pw-TwoSecret', 'Pw-ThreeSecret'],
  },
  {
    what: "a password with an unencoded '@' and '/'",
    url: 'postgres://vigil:HeadOfPw@TailOfPw/MoreOfPw@127.0.0.1:1/vigil',
    secrets: ['HeadOfPw', 'TailOfPw', 'MoreOfPw'],
  },
  {
    what: "an '@' in the query (a password parameter with an '@')",
    url: 'postgres://vigil@127.0.0.1:1/vigil?password=HeadOfQ@TailOfQ',
    secrets: ['HeadOfQ', 'TailOfQ'],
  },
];

function expectNoSecret(text: string, secrets: string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** Everything an error could print: message, stack, and its causes' too, with every own property. */
function printable(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(String(e), (e as Error).stack ?? '', JSON.stringify(e, Object.getOwnPropertyNames(e)));
  }
  return parts.join('\n');
}

describe('a store URL is redacted on every path', () => {
  it.each(URLS)('redactStoreUrl and the config check: $what', ({ url, secrets }) => {
    expect(redactStoreUrl(url)).toBe('postgres://(unparseable URL, not shown)');
    const problem = storeUrlProblem(url);
    expect(problem).toMatch(/not shown/);
    expectNoSecret(problem!, secrets);
  });

  it('a URL it can take apart keeps its user, host and database, never the password', () => {
    expect(redactStoreUrl('postgres://vigil:p@ss@db.internal/vigil')).toBe('postgres://vigil:***@db.internal/vigil');
    expect(redactStoreUrl('postgres:vigil:pw-secret@db/x')).toBe('postgres://(unparseable URL, not shown)');
  });

  it.each(URLS)('openStore refuses it, quoting none of it, causes included: $what', async ({ url, secrets }) => {
    const error = await openStore(url).then(
      async (store) => {
        await store.close();
        return null;
      },
      (caught: unknown) => caught,
    );
    expect(isVigilError(error, 'invalid_store_url')).toBe(true);
    expectNoSecret(printable(error), secrets);
  });

  it.each(URLS)('`vigil serve` fails to start without printing it, from the config and from --store: $what', async ({ url, secrets }) => {
    const dir = harness.tempDir('vigil-store-url-');
    for (const serve of [harness.serve(harness.writeConfig(dir, { store: url, port: 0 })), harness.start(['serve', '--port', '0', '--store', url])]) {
      const exited = await serve.exited;
      expect(exited.code).not.toBe(0);
      expect(serve.stderr).toMatch(/not shown/);
      expectNoSecret(serve.stdout + serve.stderr, secrets);
    }
  }, 60_000);

  it.each(URLS)('the CLI commands fail without printing it: $what', async ({ url, secrets }) => {
    const dir = harness.tempDir('vigil-store-url-cli-');
    const runs = await Promise.all([
      harness.cli(['status', '--store', url], { cwd: dir }),
      harness.cli(['migrate', '--store', url], { cwd: dir }),
      harness.cli(['events', 'alice', '--store', url], { cwd: dir }),
      harness.cli(['migrate-store', '--from', `sqlite:${dir}/data`, '--to', url], { cwd: dir }),
    ]);
    for (const run of runs) {
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/not shown/);
      expectNoSecret(run.stdout + run.stderr, secrets);
    }
  }, 60_000);
});

describe('secrets with control characters are refused at startup', () => {
  it.each([
    ['a Slack bot token with a newline, from the environment', 'channels.team.botToken', { channels: { team: { type: 'slack', botToken: 'env:SLACK_TOKEN', to: 'C0TEAM' } } }],
    ['a webhook secret read with its trailing newline', 'sources.github.secret', { sources: { github: { type: 'github', secret: 'env:HOOK_SECRET' } } }],
    ['an inline webhook secret with a carriage return', 'sources.inline.secret', { sources: { inline: { type: 'github', secret: 'inline-webhook-secret-0123456789\rSECRETTAIL' } } }],
  ])('%s: `vigil serve` stops, naming the key, never the value', async (_what, key, extra) => {
    const dir = harness.tempDir('vigil-secret-controls-');
    const serve = harness.serve(harness.writeConfig(dir, { store: 'sqlite:./data', port: 0, ...extra }), {
      SLACK_TOKEN: 'xoxb-SLACKSECRET-123\nSECRETTAIL',
      HOOK_SECRET: 'hook-SECRETVALUE-0123456789abcdef0123456789\n',
    });
    expect((await serve.exited).code).toBe(2);
    expect(serve.stderr).toContain(`${key}: the secret`);
    expect(serve.stderr).toContain('has a control character');
    expectNoSecret(serve.stdout + serve.stderr, ['SLACKSECRET', 'SECRETVALUE', 'SECRETTAIL']);
  }, 30_000);
});
