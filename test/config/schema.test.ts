import { expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { configSchema } from '../../src/config/schema.js';

it.each(['approval', 'timer', 'chat', 'approval-reminder'])('a webhook source may not be named %s: Vigil stores its own events there', (name) => {
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

it('approvals.remindAt is 0.75 unless the config says another share in (0, 1) or null; anything else is named in the error', () => {
  expect(parseConfig({}, 'test.json').approvals).toEqual({ remindAt: 0.75 });
  expect(parseConfig({ approvals: { remindAt: 0.5 } }, 'test.json').approvals.remindAt).toBe(0.5);
  expect(parseConfig({ approvals: { remindAt: null } }, 'test.json').approvals.remindAt).toBeNull();
  for (const bad of [0, 1, -1, 2, '0.5']) expect(() => parseConfig({ approvals: { remindAt: bad } }, 'test.json')).toThrow(/approvals\.remindAt/);
  expect(() => parseConfig({ approvals: { remindAfter: 0.5 } }, 'test.json')).toThrow(/approvals\.remindAfter: unknown key/);
});

it('delivery is at-least-once unless the config says at-most-once; anything else is named in the error', () => {
  expect(parseConfig({}, 'test.json').delivery).toBe('at-least-once');
  expect(parseConfig({ delivery: 'at-most-once' }, 'test.json').delivery).toBe('at-most-once');
  expect(() => parseConfig({ delivery: 'exactly-once' }, 'test.json')).toThrow(/delivery/);
});

it.each([
  ['engine.outboxGapMs', { engine: { outboxGapMs: 2 ** 53 - 1 } }, 315_576_000_000],
  ['engine.retention.doneEventsMs', { engine: { retention: { doneEventsMs: 315_576_000_001 } } }, 315_576_000_000],
  ['engine.leaseTtlMs', { engine: { leaseTtlMs: 2 ** 31 } }, 2_147_483_647],
  ['workers.pollIntervalMs', { workers: { pollIntervalMs: 2 ** 31 } }, 2_147_483_647],
  ['channels.hook.timeoutMs', { channels: { hook: { type: 'webhook', url: 'https://example.com/x', timeoutMs: 2 ** 31 } } }, 2_147_483_647],
  ['maxBodyBytes', { maxBodyBytes: 2 ** 30 + 1 }, 1_073_741_824],
])('%s past its bound (BOUNDS) stops the start, naming the key', (key, config, max) => {
  let message = '';
  try {
    parseConfig(config, 'test.json');
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain(`${key}: Too big: expected number to be <=${max}`);
});

it('each bound itself is accepted', () => {
  const config = parseConfig({ engine: { outboxGapMs: 315_576_000_000, leaseTtlMs: 2 ** 31 - 1, retention: { doneEventsMs: 315_576_000_000 } }, maxBodyBytes: 2 ** 30 }, 'test.json');
  expect(config.engine.outboxGapMs).toBe(315_576_000_000);
});

it('prices: per model id, USD per million tokens; a negative price, a missing output price or an unknown key is named in the error', () => {
  const prices = { 'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25 } };
  expect(parseConfig({ prices }, 'test.json').prices).toEqual(prices);
  expect(parseConfig({}, 'test.json').prices).toBeUndefined();
  expect(() => parseConfig({ prices: { 'gpt-4o': { inputPerMTok: -1, outputPerMTok: 1 } } }, 'test.json')).toThrow(/prices.*inputPerMTok/);
  expect(() => parseConfig({ prices: { 'gpt-4o': { inputPerMTok: 1 } } }, 'test.json')).toThrow(/prices.*outputPerMTok/);
  expect(() => parseConfig({ prices: { 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 1, perCall: 1 } } }, 'test.json')).toThrow(/perCall/);
});

it('retention.usageMs is a stored duration like every retention', () => {
  expect(parseConfig({ engine: { retention: { usageMs: 86_400_000 } } }, 'test.json').engine.retention).toEqual({ usageMs: 86_400_000 });
  expect(() => parseConfig({ engine: { retention: { usageMs: -1 } } }, 'test.json')).toThrow(/usageMs/);
});
