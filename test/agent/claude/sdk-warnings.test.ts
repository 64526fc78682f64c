/**
 * The SDK's own warnings (its model deprecation notice, printed with
 * console.warn on every request) go through the service's logger as JSON
 * lines once routed, and nothing reaches the console; other code's
 * console.warn is left alone.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { claudeModel } from '../../../src/agent/claude/index.js';
import { routeClaudeSdkWarnings } from '../../../src/agent/claude/sdk-warnings.js';
import { createLogger } from '../../../src/observability/logger.js';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer } from './fake-messages-server.js';
import { jsonLog } from '../../fixtures/json-log.js';

let server: FakeMessagesServer | undefined;
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

function capturedLogger() {
  const { lines, destination } = jsonLog();
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const hello = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] }];

it('a deprecated model: the SDK\'s notice is a warn line in the log, not console output', async () => {
  server = await startFakeMessagesServer();
  server.enqueue(messageReply([{ type: 'text', text: 'hi' }]), messageReply([{ type: 'text', text: 'again' }]));
  const { lines, logger } = capturedLogger();
  stops.push(routeClaudeSdkWarnings(logger));
  const warn = vi.spyOn(console, 'warn');
  const model = claudeModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', baseURL: server.url });
  await model.step(hello, [], new AbortController().signal);
  expect(warn).not.toHaveBeenCalled();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 40, source: '@anthropic-ai/sdk' });
  expect(lines[0]!.msg).toMatch(/^The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on /);
  // console.warn is the console's again once the call is made.
  console.warn('someone else');
  expect(warn).toHaveBeenCalledWith('someone else');
  expect(lines).toHaveLength(1);
});

it('unrouted (Vigil as a library): the SDK prints to the console as it always does', async () => {
  server = await startFakeMessagesServer();
  server.enqueue(messageReply([{ type: 'text', text: 'hi' }]));
  const { logger } = capturedLogger();
  routeClaudeSdkWarnings(logger)(); // routed, then unrouted
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  await claudeModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-test', baseURL: server.url }).step(hello, [], new AbortController().signal);
  expect(warn).toHaveBeenCalledOnce();
});

it('what the client itself logs (a bad setting here) goes to the log too', async () => {
  const { lines, logger } = capturedLogger();
  stops.push(routeClaudeSdkWarnings(logger));
  vi.stubEnv('ANTHROPIC_LOG', 'loud');
  const warn = vi.spyOn(console, 'warn');
  // The client is made at the first call (the SDK loads lazily); nothing listens on port 9.
  const model = claudeModel({ model: 'claude-test', apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
  await model.step([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], [], new AbortController().signal).catch(() => undefined);
  vi.unstubAllEnvs();
  expect(warn).not.toHaveBeenCalled();
  expect(lines).toMatchObject([{ level: 40, source: '@anthropic-ai/sdk', msg: expect.stringContaining('ANTHROPIC_LOG') }]);
});
