import { describe, expect, it } from 'vitest';
import { createChannels } from '../../src/channels/create-channels.js';
import { channelsSchema } from '../../src/config/schema.js';
import { defer } from '../runtime/helpers.js';

describe('createChannels', () => {
  it('builds every configured channel from the config shape', () => {
    const config = channelsSchema.parse({
      console: {},
      webhook: { url: 'https://example.com/hook', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=' },
      slack: { url: 'https://hooks.slack.com/services/T/B/X' },
      email: { host: 'smtp.example.com', port: 587, from: 'agent@example.com', to: 'me@example.com' },
    });
    const channels = createChannels(config);
    defer(async () => {
      await Promise.all(channels.map(async (c) => c.close?.()));
    });
    expect(channels.map((c) => c.name)).toEqual(['console', 'webhook', 'slack', 'email']);
  });

  it('falls back to the console when no channel is configured, so replies are never dropped', () => {
    expect(createChannels(channelsSchema.parse({})).map((c) => c.name)).toEqual(['console']);
  });
});
