/**
 * The Slack channel: an incoming webhook (https://api.slack.com/messaging/webhooks)
 * takes `{ text }`. Slack has no idempotency key for incoming webhooks, so
 * a retried batch may show twice; the other channels carry the batch id.
 */
import type { Channel, OutgoingMessage } from './channel.js';
import { postJson } from './http-post.js';

export interface SlackChannelOptions {
  /** The incoming webhook URL; it is the credential, so it never appears in errors or logs. */
  url: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createSlackChannel(options: SlackChannelOptions): Channel {
  return {
    name: 'slack',
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<void> {
      await postJson({
        url: options.url,
        label: 'slack incoming webhook',
        body: JSON.stringify({ text: message.body }),
        signal,
        timeoutMs: options.timeoutMs ?? 10_000,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
    },
  };
}
