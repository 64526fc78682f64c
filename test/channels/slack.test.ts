import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createSlackChannel } from '../../src/channels/slack.js';
import { startFakeSlack } from '../../examples/fakes/slack.js';
import { defer } from '../runtime/helpers.js';
import { startReceiver } from './receiver.js';

const message: OutgoingMessage = { inboxId: 'alice', body: 'hello from the agent', messages: [{ id: 1, body: 'hello from the agent', urgent: false, channel: null }], id: 'alice:1-1', contact: null };

describe('slack channel', () => {
  it('POSTs { text } to the incoming webhook', async () => {
    const receiver = await startReceiver();
    await createSlackChannel({ url: `${receiver.url}/services/T000/B000/XXXX` }).send(message, new AbortController().signal);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/services/T000/B000/XXXX' });
    expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual({ text: 'hello from the agent' });
  });

  it("an incoming webhook's refusal is rejected, naming the answer and never the webhook URL (the credential)", async () => {
    const receiver = await startReceiver([404], 'no_service');
    const outcome = await createSlackChannel({ url: `${receiver.url}/services/T000/B000/XXXX` }).send(message, new AbortController().signal);
    expect(outcome).toEqual({ status: 'rejected', reason: 'slack incoming webhook answered 404: no_service' });
  });

  it('gives up when its signal aborts', async () => {
    const receiver = await startReceiver();
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    await expect(createSlackChannel({ url: receiver.url }).send(message, controller.signal)).rejects.toThrow('deadline');
  });
});

describe('slack channel, bot mode (chat.postMessage)', () => {
  const TOKEN = 'xoxb-test-token-that-is-a-secret';

  async function slack() {
    const api = await startFakeSlack({ token: TOKEN, channels: ['D0ANA', 'D0BEN'] });
    defer(() => api.close());
    return { api, channel: createSlackChannel({ botToken: TOKEN, apiUrl: api.apiUrl }) };
  }

  it("posts to the inbox's own conversation (contacts.slack) with the bot token, and needs that contact", async () => {
    const { api, channel } = await slack();
    expect(channel.contact).toBe('required');
    expect(await channel.send({ ...message, contact: 'D0ANA' }, new AbortController().signal)).toEqual({ status: 'delivered' });
    expect(api.posted.get('D0ANA')).toEqual(['hello from the agent']);
    expect(api.requests[0]!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('reads the body Slack answers 200 with: a revoked token or an unknown conversation is rejected for good, naming the error and not the token', async () => {
    const { api, channel } = await slack();
    expect(await channel.send({ ...message, contact: 'C-unknown' }, new AbortController().signal)).toEqual({
      status: 'rejected',
      reason: 'slack refused the message: channel_not_found',
    });
    api.revoke();
    const revoked = await channel.send({ ...message, contact: 'D0ANA' }, new AbortController().signal);
    expect(revoked).toEqual({ status: 'rejected', reason: 'slack refused the message: token_revoked' });
    expect(JSON.stringify(revoked)).not.toContain(TOKEN);
  });

  it('a rate limit (429 with Retry-After) and Slack-side failures (ok:false, internal_error) are worth another try', async () => {
    const { api, channel } = await slack();
    api.answerNext({ status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' } });
    api.answerNext({ body: { ok: false, error: 'internal_error' } });
    const send = () => channel.send({ ...message, contact: 'D0BEN' }, new AbortController().signal);
    expect(await send()).toEqual({ status: 'retry', reason: expect.stringMatching(/429/), retryAfterMs: 30_000 });
    expect(await send()).toEqual({ status: 'retry', reason: 'slack could not take the message: internal_error' });
    expect(await send()).toEqual({ status: 'delivered' });
  });
});
