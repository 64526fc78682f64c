import { expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { configSchema } from '../../src/config/schema.js';

it.each(['approval', 'timer', 'chat'])('a webhook source may not be named %s: Vigil stores its own events there', (name) => {
  const result = configSchema.safeParse({ sources: { [name]: { type: 'github', secret: 's' } } });
  expect(result.success).toBe(false);
  expect(JSON.stringify(result.error?.issues)).toContain('reserved source names');
});

it('an ordinary source name is accepted', () => {
  expect(configSchema.safeParse({ sources: { github: { type: 'github', secret: 's' } } }).success).toBe(true);
});

it('an unknown key that is not a plain name is quoted in the error, never blank', () => {
  const message = (value: unknown): string => {
    try {
      parseConfig(value, 'test.json');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  expect(message({ '': 1 })).toContain('"": unknown key');
  expect(message({ 'two words': 1, colour: 'red' })).toMatch(/"two words", colour: unknown keys/);
  expect(message({ workers: { 'a.b': 1 } })).toContain('workers."a.b": unknown key');
});

it('delivery is at-least-once unless the config says at-most-once; anything else is named in the error', () => {
  expect(parseConfig({}, 'test.json').delivery).toBe('at-least-once');
  expect(parseConfig({ delivery: 'at-most-once' }, 'test.json').delivery).toBe('at-most-once');
  expect(() => parseConfig({ delivery: 'exactly-once' }, 'test.json')).toThrow(/delivery/);
});
