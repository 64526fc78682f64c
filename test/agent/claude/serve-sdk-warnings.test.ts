/**
 * A real `vigil serve` running the Claude demo on a deprecated model
 * (VIGIL_CLAUDE_MODEL=claude-sonnet-4-5) against the local fake Messages
 * API: the SDK's end-of-life notice is a JSON warn line in the service's
 * log, and nothing is printed to stderr.
 */
import { afterEach, expect, it } from 'vitest';
import { ServiceHarness } from '../../fixtures/service-process.js';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer } from './fake-messages-server.js';

const harness = new ServiceHarness();
let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await harness.cleanup();
  await server?.close();
  server = undefined;
});

it('the deprecation notice is a log line, not stderr', async () => {
  server = await startFakeMessagesServer();
  server.enqueue(messageReply([{ type: 'text', text: 'Hello from the fake.' }]));
  const dir = harness.tempDir('vigil-sdk-warnings-');
  const config = harness.writeConfig(dir, { store: 'sqlite:./data', port: 0, token: 'sdk-warnings-token-0123456789abcdef', engine: { outboxGapMs: 0 }, workers: { pollIntervalMs: 200 } });
  const serve = harness.serve(config, { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, VIGIL_CLAUDE_MODEL: 'claude-sonnet-4-5' });
  const url = await serve.url();
  const response = await fetch(`${url}/inboxes/alice/messages`, {
    method: 'POST',
    body: JSON.stringify({ text: 'hi' }),
    headers: { authorization: 'Bearer sdk-warnings-token-0123456789abcdef', 'idempotency-key': 'm1', 'content-type': 'application/json' },
  });
  expect(response.status).toBe(202);
  const warning = await serve.log('the SDK warning', (line) => line.source === '@anthropic-ai/sdk');
  expect(warning).toMatchObject({ level: 40 });
  expect(warning.msg).toMatch(/^The model 'claude-sonnet-4-5' is deprecated/);
  await serve.log('the run', (line) => line.msg === 'run finished' && line.inboxId === 'alice');
  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  expect(serve.stderr).toBe('');
});
