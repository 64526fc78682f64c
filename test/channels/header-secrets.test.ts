/**
 * An Authorization value never reaches an error message (issue 49, finding
 * 5): fetch refuses a header with a line break by quoting it whole, so a
 * Slack bot token with a newline was in the log on every retry. The config
 * refuses such a token at startup (test/service/secrets-in-logs.test.ts);
 * a channel built in code gets an error naming the header, not its value.
 */
import { expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createSlackChannel } from '../../src/channels/slack.js';
import { startFakeSlack } from '../../examples/fakes/slack.js';
import { defer } from '../runtime/helpers.js';

const message: OutgoingMessage = { inboxId: 'alice', body: 'hi', messages: [{ id: 1, body: 'hi', urgent: false, channel: null }], id: 'alice:1-1', contact: 'D0ANA' };

it.each(['\n', '\r\n', '\r', '\0'])('a bot token with %j: the send fails naming the header, never the token', async (breaker) => {
  const api = await startFakeSlack({ token: 'xoxb-fine', channels: ['D0ANA'] });
  defer(() => api.close());
  const token = `xoxb-secret-token-${breaker}tail-of-the-secret`;
  const sent = createSlackChannel({ botToken: token, apiUrl: api.apiUrl }).send(message, new AbortController().signal);
  const error = (await sent.then(() => null, (caught: unknown) => caught)) as Error;
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toBe('slack chat.postMessage: the authorization header has a line break or a NUL, which no HTTP header may carry (value not shown)');
  const everything = JSON.stringify({ message: error.message, stack: error.stack, cause: String((error as { cause?: unknown }).cause) });
  expect(everything).not.toContain('secret-token');
  expect(everything).not.toContain('tail-of-the-secret');
});
