import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createSlackChannel } from '../../src/channels/slack.js';
import { startReceiver } from './receiver.js';

const message: OutgoingMessage = { inboxId: 'alice', body: 'hello from the agent', messages: [{ id: 1, body: 'hello from the agent', urgent: false }], id: 'alice:1-1' };

describe('slack channel', () => {
  it('POSTs { text } to the incoming webhook', async () => {
    const receiver = await startReceiver();
    await createSlackChannel({ url: `${receiver.url}/services/T000/B000/XXXX` }).send(message, new AbortController().signal);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/services/T000/B000/XXXX' });
    expect(receiver.requests[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual({ text: 'hello from the agent' });
  });

  it("fails on Slack's error answers without putting the webhook URL (the credential) in the error", async () => {
    const receiver = await startReceiver([404], 'no_service');
    const failure = createSlackChannel({ url: `${receiver.url}/services/T000/B000/XXXX` }).send(message, new AbortController().signal);
    await expect(failure).rejects.toThrow('slack incoming webhook answered 404: no_service');
    await expect(failure).rejects.not.toThrow(/XXXX/);
  });

  it('gives up when its signal aborts', async () => {
    const receiver = await startReceiver();
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    await expect(createSlackChannel({ url: receiver.url }).send(message, controller.signal)).rejects.toThrow('deadline');
  });
});
