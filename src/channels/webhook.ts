/**
 * The outbound webhook channel: POSTs `{ inbox, id, to, body, messages }` signed
 * per Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` is
 * the batch id, the same on every retry of the same batch, so a receiver
 * dedupes what at-least-once delivery repeats; `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the `whsec_`
 * secret's base64 bytes. `to` is the inbox's `contacts.webhook`, or null:
 * the receiver routes by it.
 */
import { systemClock, type Clock } from '../clock.js';
import { hmacSha256 } from '../crypto.js';
import { VigilError } from '../errors.js';
import { CHANNEL_DEFAULTS, type Channel, type DeliveryResult, type OutgoingMessage } from './channel.js';
import { deliverPost, deliveryOf } from './http-post.js';

export interface WebhookChannelOptions {
  /** Default `webhook`. */
  name?: string;
  url: string;
  /** `whsec_<base64>` (the prefix is optional, as in the reference libraries). */
  secret: string;
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
}

const PREFIX = 'whsec_';

export function createWebhookChannel(options: WebhookChannelOptions): Channel {
  const key = signingKey(options.secret);
  const clock = options.clock ?? systemClock;
  const label = `webhook ${new URL(options.url).host}`;
  return {
    name: options.name ?? 'webhook',
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<DeliveryResult> {
      const body = JSON.stringify({ inbox: message.inboxId, id: message.id, to: message.contact, body: message.body, messages: message.messages });
      const post = {
        url: options.url,
        label,
        body,
        headers: signWebhook(key, message.id, Math.floor(clock() / 1000), body),
        signal,
        timeoutMs: options.timeoutMs ?? CHANNEL_DEFAULTS.timeoutMs,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      };
      return deliverPost(post, (answer) => deliveryOf(answer, label));
    },
  };
}

/** The three Standard Webhooks headers for one delivery. */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = hmacSha256(key, `${id}.${timestampSeconds}.${body}`).toString('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}

function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    throw new VigilError('invalid_options', 'channels.webhook.secret must be a Standard Webhooks secret: whsec_ followed by base64');
  }
  return key;
}
