/**
 * docs/configuration.md is generated from the configuration's zod schema
 * (scripts/config-reference.ts): it must be what the schema says now, and
 * every key must have a description. After changing src/config/schema.ts,
 * `npm run docs:config` brings the document up to date.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIGURATION_MD, renderConfigReference } from '../../scripts/config-reference.js';
import { configSchema } from '../../src/config/schema.js';

it('docs/configuration.md is what the schema says (run npm run docs:config after changing the schema)', () => {
  expect(readFileSync(CONFIGURATION_MD, 'utf8')).toBe(renderConfigReference());
});

it('names every key of the schema, with its default', () => {
  const text = readFileSync(CONFIGURATION_MD, 'utf8');
  const keys = (shape: Record<string, z.ZodType>, prefix: string): string[] =>
    Object.entries(shape).flatMap(([key, schema]) => {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      let inner: z.ZodType = schema;
      // Defaults, optionals and descriptions wrap the object whose keys we want.
      while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
      return inner instanceof z.ZodObject && path !== 'sources' ? [path, ...keys(inner.shape as Record<string, z.ZodType>, path)] : [path];
    });
  for (const key of keys(configSchema.shape, '')) expect(text, key).toContain(`| \`${key}\` |`);
  expect(text).toContain('| `port` | integer, ≥ 0, ≤ 65535 | `8787` |');
  expect(text).toContain('| `toleranceSeconds` | integer, > 0, ≤ 315576000 | `300` |');
});

it('a key without a description stops the generator, naming the key', () => {
  const undocumented = z.object({ documented: z.string().describe('Has one.'), nested: z.object({ bare: z.number() }).describe('A group.') });
  expect(() => renderConfigReference(undocumented)).toThrow('config key nested.bare has no description');
});
