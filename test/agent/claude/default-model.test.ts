/**
 * The default Claude model is the newest alias the installed SDK lists
 * without a deprecation: read from the SDK itself (its Model type, newest
 * first, and its deprecation table), so an upgrade that adds a model or
 * deprecates this one fails here until the default follows. And the SDK
 * prints no deprecation notice for it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { claudeModel, DEFAULT_CLAUDE_MODEL } from '../../../src/agent/claude/index.js';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer } from './fake-messages-server.js';

const require = createRequire(import.meta.url);
const SDK_DIR = dirname(require.resolve('@anthropic-ai/sdk'));

/** The SDK's known model ids, in its order (newest first). */
function sdkModels(): string[] {
  const types = readFileSync(join(SDK_DIR, 'resources/messages/messages.d.ts'), 'utf8');
  const union = /export type Model = ([^;]+);/.exec(types);
  if (union === null) throw new Error('the installed SDK has no `export type Model = …` in resources/messages/messages.d.ts');
  return [...union[1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

function sdkDeprecated(): Record<string, string> {
  // internal/ is outside the package's exports map; an absolute path is not.
  return (require(join(SDK_DIR, 'internal/data.js')) as { DEPRECATED_MODELS: Record<string, string> }).DEPRECATED_MODELS;
}

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

it('is the first alias (no date snapshot) in the SDK\'s list that its deprecation table does not name', () => {
  const deprecated = sdkDeprecated();
  expect(Object.keys(deprecated)).toContain('claude-sonnet-4-5'); // the old default: the table is read, and it is in it
  const newest = sdkModels().find((id) => !/-\d{8}$/.test(id) && !Object.hasOwn(deprecated, id));
  expect(DEFAULT_CLAUDE_MODEL).toBe(newest);
});

it('the SDK warns about nothing when the default is used', async () => {
  server = await startFakeMessagesServer();
  server.enqueue(messageReply([{ type: 'text', text: 'hi' }]));
  const warn = vi.spyOn(console, 'warn');
  const model = claudeModel({ model: DEFAULT_CLAUDE_MODEL, apiKey: 'sk-test', baseURL: server.url });
  await model.step([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], [], new AbortController().signal);
  expect((server.requests[0]!.body as { model: string }).model).toBe(DEFAULT_CLAUDE_MODEL);
  expect(warn).not.toHaveBeenCalled();
});
