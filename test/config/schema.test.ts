import { expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';

it.each(['approval', 'timer', 'chat'])('a webhook source may not be named %s: Vigil stores its own events there', (name) => {
  const result = configSchema.safeParse({ sources: { [name]: { type: 'github', secret: 's' } } });
  expect(result.success).toBe(false);
  expect(JSON.stringify(result.error?.issues)).toContain('reserved source names');
});

it('an ordinary source name is accepted', () => {
  expect(configSchema.safeParse({ sources: { github: { type: 'github', secret: 's' } } }).success).toBe(true);
});
