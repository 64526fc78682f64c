/**
 * How each provider signs a delivery, using the provider's own library
 * where one exists (@octokit/webhooks-methods, stripe, standardwebhooks),
 * so the verifiers are checked against an implementation that is not ours.
 * Slack and generic HMAC have no signing library; they follow the docs.
 */
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { SECRETS } from './http-harness.js';

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

export interface Provider {
  /** The source name in SOURCES. */
  source: string;
  /** Signs a timestamp, so a replay window applies. */
  timestamped: boolean;
  /** A realistic payload; carries the key when the key lives in the body. */
  payload(id: string): Record<string, unknown>;
  /** Headers for `body` signed with `secret` at `nowMs`, including the key header where the key is a header. */
  sign(body: string, options: { id: string; secret: string; nowMs: number }): Promise<Record<string, string>>;
  /** The secret a forger would have to guess: same shape, wrong value. */
  wrongSecret: string;
  secret: string;
  /** The headers that carry the signature (dropping any one of them is missing_signature). */
  signatureHeaders: string[];
  /** A correctly signed delivery without its dedupe key, or null when the key is itself signed. */
  withoutKey(nowMs: number): Promise<Delivery | null>;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

export const github: Provider = {
  source: 'github',
  timestamped: false,
  payload: (id) => ({ action: 'opened', issue: { number: 7, title: `Issue for ${id}` } }),
  async sign(body, { id, secret }) {
    return { 'x-github-event': 'issues', 'x-github-delivery': id, 'x-hub-signature-256': await githubSign(secret, body) };
  },
  secret: SECRETS.github,
  wrongSecret: 'not-the-github-secret-0123456789abc',
  signatureHeaders: ['x-hub-signature-256'],
  async withoutKey() {
    const body = JSON.stringify({ action: 'opened' });
    return { body, headers: { 'x-hub-signature-256': await githubSign(SECRETS.github, body) } };
  },
};

export const stripe: Provider = {
  source: 'stripe',
  timestamped: true,
  payload: (id) => ({ id, object: 'event', type: 'charge.refunded', data: { object: { id: 'ch_1', amount: 500 } } }),
  async sign(body, { secret, nowMs }) {
    return { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: seconds(nowMs) }) };
  },
  secret: SECRETS.stripe,
  wrongSecret: 'whsec_not_the_stripe_secret_0123456',
  signatureHeaders: ['stripe-signature'],
  async withoutKey(nowMs) {
    const body = JSON.stringify({ object: 'event', type: 'charge.refunded' });
    return { body, headers: await stripe.sign(body, { id: '', secret: SECRETS.stripe, nowMs }) };
  },
};

export const standard: Provider = {
  source: 'standard',
  timestamped: true,
  payload: (id) => ({ type: 'invoice.paid', data: { invoice: `inv_${id}` } }),
  async sign(body, { id, secret, nowMs }) {
    return { 'webhook-id': id, 'webhook-timestamp': String(seconds(nowMs)), 'webhook-signature': new Webhook(secret).sign(id, new Date(nowMs), body) };
  },
  secret: SECRETS.standard,
  wrongSecret: 'whsec_' + Buffer.from('another-key-of-the-same-length!!').toString('base64'),
  signatureHeaders: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  async withoutKey() {
    return null; // webhook-id is part of what is signed: without it the signature cannot be checked
  },
};

function slackHeaders(body: string, secret: string, nowMs: number): Record<string, string> {
  const timestamp = String(seconds(nowMs));
  const signature = 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature };
}

export const slack: Provider = {
  source: 'slack',
  timestamped: true,
  payload: (id) => ({ type: 'event_callback', event_id: id, team_id: 'T1', event: { type: 'message', text: 'hello' } }),
  async sign(body, { secret, nowMs }) {
    return slackHeaders(body, secret, nowMs);
  },
  secret: SECRETS.slack,
  wrongSecret: 'not-the-slack-secret-0123456789abcd',
  signatureHeaders: ['x-slack-signature', 'x-slack-request-timestamp'],
  async withoutKey(nowMs) {
    const body = JSON.stringify({ type: 'event_callback', event: { type: 'message' } });
    return { body, headers: slackHeaders(body, SECRETS.slack, nowMs) };
  },
};

export const acme: Provider = {
  source: 'acme',
  timestamped: false,
  payload: (id) => ({ order: id, status: 'shipped' }),
  async sign(body, { id, secret }) {
    return { 'x-acme-delivery': id, 'x-acme-signature': 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') };
  },
  secret: SECRETS.hmac,
  wrongSecret: 'not-the-hmac-secret-0123456789abcde',
  signatureHeaders: ['x-acme-signature'],
  async withoutKey() {
    const body = JSON.stringify({ order: 'x' });
    return { body, headers: { 'x-acme-signature': createHmac('sha256', SECRETS.hmac).update(body).digest('hex') } };
  },
};

export const PROVIDERS: Provider[] = [github, stripe, standard, slack, acme];
