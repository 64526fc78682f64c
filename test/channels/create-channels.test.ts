/**
 * Channels by name, with an audience (config `channels`, resolve-config.ts,
 * create-channels.ts): several of one kind, the users' and the operator's
 * apart, the older kind-keyed form read as named channels for users, and
 * what an operator's channel must have.
 */
import { describe, expect, it } from 'vitest';
import { createChannels, type ChannelSpec } from '../../src/channels/create-channels.js';
import { ConfigError } from '../../src/config/config-error.js';
import { parseConfig } from '../../src/config/load-config.js';
import { defer } from '../runtime/helpers.js';

const WHSEC = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==';

function channelsOf(channels: unknown, env: NodeJS.ProcessEnv = {}): ChannelSpec[] {
  return parseConfig({ channels }, 'test config', env).channels;
}

function problemsOf(channels: unknown): string {
  try {
    channelsOf(channels);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('channels in the config', () => {
  it('builds every configured channel under its own name, two of one kind included, each for its audience', () => {
    const specs = channelsOf(
      {
        'slack-team': { type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' },
        'slack-ops': { type: 'slack', audience: 'operator', botToken: 'env:OPS_BOT', to: 'C0OPS' },
        inbound: { type: 'webhook', url: 'https://example.com/hook', secret: WHSEC },
        mail: { type: 'email', host: 'smtp.example.com', port: 587, from: 'agent@example.com', to: 'me@example.com' },
      },
      { OPS_BOT: 'xoxb-ops-token' },
    );
    expect(specs.map((spec) => [spec.name, spec.type, spec.audience])).toEqual([
      ['slack-team', 'slack', 'users'],
      ['slack-ops', 'slack', 'operator'],
      ['inbound', 'webhook', 'users'],
      ['mail', 'email', 'users'],
    ]);
    // Secrets arrive read: "env:OPS_BOT" became the token.
    expect(specs.find((spec) => spec.name === 'slack-ops')).toMatchObject({ botToken: 'xoxb-ops-token' });
    const channels = createChannels(specs);
    defer(async () => {
      await Promise.all([...channels.users, ...channels.operator].map(async (c) => c.close?.()));
    });
    expect(channels.users.map((c) => c.name)).toEqual(['slack-team', 'inbound', 'mail']);
    expect(channels.operator.map((c) => c.name)).toEqual(['slack-ops']);
  });

  it('reads the older form keyed by kind as channels named for their kind, for users', () => {
    const specs = channelsOf({
      console: {},
      webhook: { url: 'https://example.com/hook', secret: WHSEC },
      slack: { botToken: 'xoxb-1' },
    });
    expect(specs.map((spec) => [spec.name, spec.type, spec.audience])).toEqual([
      ['console', 'console', 'users'],
      ['webhook', 'webhook', 'users'],
      ['slack', 'slack', 'users'],
    ]);
    // So an inbox's contacts.slack still reaches the same channel.
    expect(createChannels(specs).users.map((c) => [c.name, c.contact ?? 'optional'])).toEqual([
      ['console', 'optional'],
      ['webhook', 'optional'],
      ['slack', 'required'],
    ]);
  });

  it('falls back to the console for users when no channel is for users, so replies are never dropped', () => {
    expect(createChannels(channelsOf({})).users.map((c) => c.name)).toEqual(['console']);
    const onlyOperator = createChannels(channelsOf({ ops: { type: 'console', audience: 'operator' } }));
    expect([onlyOperator.users.map((c) => c.name), onlyOperator.operator.map((c) => c.name)]).toEqual([['console'], ['ops']]);
    expect(parseConfig({}, 'test config', {}).channels).toEqual([{ name: 'console', type: 'console', audience: 'users' }]);
  });

  it('refuses what cannot work, naming the channel: an operator channel that could reach only contacts, a bad name, a kind-keyed entry of another kind', () => {
    expect(problemsOf({ ops: { type: 'slack', audience: 'operator', botToken: 'xoxb-1' } })).toContain('channels.ops.to: an operator channel has no inbox contact to send to');
    expect(problemsOf({ ops: { type: 'email', audience: 'operator', host: 'h', port: 25, from: 'a@b.c' } })).toContain('channels.ops.to');
    expect(problemsOf({ Team: { type: 'console' } })).toContain('channel names are lowercase');
    expect(problemsOf({ team: { url: 'https://example.com' } })).toContain('channels.team.type');
    expect(problemsOf({ slack: { type: 'email', audience: 'everyone' } })).toContain('channels.slack');
    expect(problemsOf({ team: { type: 'slack', url: 'https://hooks.slack.com/x', to: 'C1' } })).toContain('to goes with botToken');
  });

  it('an unset secret variable of any channel is reported with every other, before anything starts', () => {
    const message = problemsOfEnv({
      a: { type: 'webhook', url: 'https://example.com/a', secret: 'env:A_SECRET' },
      b: { type: 'email', host: 'h', port: 25, from: 'a@b.c', to: 'x@y.z', password: 'env:B_PASSWORD' },
    });
    expect(message).toContain('channels.a.secret: environment variable A_SECRET is not set');
    expect(message).toContain('channels.b.password: environment variable B_PASSWORD is not set');
  });
});

function problemsOfEnv(channels: unknown): string {
  try {
    channelsOf(channels, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}
