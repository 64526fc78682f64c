/**
 * Builds the configured channels (config `channels`, see config/schema.ts).
 * Secrets arrive resolved: `env:VAR` is the config loader's job, done once
 * at startup. An empty config means the console, so replies are never
 * silently dropped.
 */
import type { Clock } from '../clock.js';
import type { ChannelsConfig } from '../config/schema.js';
import type { Channel } from './channel.js';
import { createConsoleChannel } from './console.js';
import { createEmailChannel } from './email.js';
import { createSlackChannel } from './slack.js';
import { createWebhookChannel } from './webhook.js';

export interface ChannelDeps {
  /** Where the console channel prints (default stdout). */
  stdout?: NodeJS.WritableStream;
  clock?: Clock;
  fetch?: typeof fetch;
}

export function createChannels(config: ChannelsConfig, deps: ChannelDeps = {}): Channel[] {
  const channels: Channel[] = [];
  const http = deps.fetch === undefined ? {} : { fetch: deps.fetch };
  if (config.console !== undefined) channels.push(createConsoleChannel(deps.stdout === undefined ? {} : { stream: deps.stdout }));
  if (config.webhook !== undefined) {
    channels.push(createWebhookChannel({ ...config.webhook, ...http, ...(deps.clock === undefined ? {} : { clock: deps.clock }) }));
  }
  if (config.slack !== undefined) channels.push(createSlackChannel({ ...config.slack, ...http }));
  if (config.email !== undefined) channels.push(createEmailChannel(config.email));
  if (channels.length === 0) channels.push(createConsoleChannel(deps.stdout === undefined ? {} : { stream: deps.stdout }));
  return channels;
}
