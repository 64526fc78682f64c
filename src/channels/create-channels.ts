/**
 * Builds the configured channels, each under its own name and for its
 * audience: the users' channels carry each inbox's outbox to its person;
 * the operator's carry messages for whoever runs the service, and never a
 * user's message. Secrets arrive resolved: `env:VAR` is the config
 * loader's job, done once at startup. Without a channel for users, the
 * console is one, so replies are never silently dropped.
 *
 * A new kind of channel is its module here, a case below, and its entry in
 * the config's schema (src/config/schema.ts).
 */
import type { Clock } from '../clock.js';
import type { Audience, Channel } from './channel.js';
import { createConsoleChannel } from './console.js';
import { createEmailChannel, type EmailChannelOptions } from './email.js';
import { createSlackChannel, type SlackChannelOptions } from './slack.js';
import { createWebhookChannel, type WebhookChannelOptions } from './webhook.js';

/** One configured channel: its name (the key of an inbox's contacts for it), who it is for, and its kind's options. */
export type ChannelSpec = { name: string; audience: Audience } & (
  | { type: 'console' }
  | ({ type: 'webhook' } & Omit<WebhookChannelOptions, 'name' | 'clock' | 'fetch'>)
  | ({ type: 'slack' } & Omit<SlackChannelOptions, 'name' | 'fetch'>)
  | ({ type: 'email' } & Omit<EmailChannelOptions, 'name'>)
);

export type ChannelType = ChannelSpec['type'];

export interface ChannelDeps {
  /** Where the console channel prints (default stdout). */
  stdout?: NodeJS.WritableStream;
  /** How the console channel prints (console.ts). */
  consoleFormat?: 'text' | 'json';
  clock?: Clock;
  fetch?: typeof fetch;
}

/** The channels of each audience. */
export interface Channels {
  users: Channel[];
  operator: Channel[];
}

export function createChannels(specs: readonly ChannelSpec[], deps: ChannelDeps = {}): Channels {
  return {
    users: usersChannels(specs).map((spec) => createChannel(spec, deps)),
    operator: specs.filter((spec) => spec.audience === 'operator').map((spec) => createChannel(spec, deps)),
  };
}

/** The channels for users: the configured ones, else the console. */
export function usersChannels(specs: readonly ChannelSpec[]): ChannelSpec[] {
  const users = specs.filter((spec) => spec.audience === 'users');
  return users.length > 0 ? users : [{ name: 'console', audience: 'users', type: 'console' }];
}

function createChannel(spec: ChannelSpec, deps: ChannelDeps): Channel {
  const http = deps.fetch === undefined ? {} : { fetch: deps.fetch };
  const { name } = spec;
  switch (spec.type) {
    case 'console':
      return createConsoleChannel({
        name,
        ...(deps.stdout === undefined ? {} : { stream: deps.stdout }),
        ...(deps.consoleFormat === undefined ? {} : { format: deps.consoleFormat }),
      });
    case 'webhook':
      return createWebhookChannel({ ...options(spec), name, ...http, ...(deps.clock === undefined ? {} : { clock: deps.clock }) });
    case 'slack':
      return createSlackChannel({ ...options(spec), name, ...http });
    case 'email':
      return createEmailChannel({ ...options(spec), name });
  }
}

/**
 * Whether a channel of this kind, so configured, can send a message with no
 * contact (an inbox without one for it, or the operator's messages): a
 * Slack bot and email need their `to` then; the others have one place to send.
 */
export function sendsWithoutContact(spec: { type: ChannelType; botToken?: unknown; to?: unknown }): boolean {
  switch (spec.type) {
    case 'slack':
      return spec.botToken === undefined || spec.to !== undefined;
    case 'email':
      return spec.to !== undefined;
    case 'console':
    case 'webhook':
      return true;
  }
}

/** A spec's options for its kind: without what says which kind and for whom. */
function options<T extends ChannelSpec>({ type: _type, audience: _audience, ...rest }: T): Omit<T, 'type' | 'audience'> {
  return rest;
}
