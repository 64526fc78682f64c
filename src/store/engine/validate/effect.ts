/** The ledger of side effects' input (contract/effects.ts): a call about to start, a settlement, a query. */
import { createHash } from 'node:crypto';
import { VigilError } from '../../../errors.js';
import type { EffectIntent, EffectQuery, EffectSettlement } from '../../contract.js';
import { toJson } from './json.js';
import { checkKey, describe, objectInput, validateLimit } from './text.js';

export interface CheckedIntent {
  key: string;
  tool: string;
  inputJson: string;
  /** sha256 (hex) of the input's stable JSON: the same call however its input object was built. */
  inputHash: string;
}

export interface CheckedEffectQuery {
  which: 'unknown' | 'all';
  limit: number;
}

export function validateIntent(intent: unknown, maxBytes: number): CheckedIntent {
  const { key, tool, input } = objectInput<EffectIntent>(intent, 'invalid_argument', 'an effect must be an object { key, tool, input }');
  checkKey('invalid_argument', 'effect key', key);
  checkKey('invalid_argument', 'effect tool', tool);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new VigilError('invalid_argument', `an effect's input must be a JSON object, got ${describe(input)}`);
  }
  const inputJson = toJson('invalid_argument', 'effect input', input, maxBytes);
  return { key, tool, inputJson, inputHash: createHash('sha256').update(stableJson(JSON.parse(inputJson))).digest('hex') };
}

export function validateEffectKey(key: unknown): string {
  checkKey('invalid_argument', 'effect key', key);
  return key;
}

export function validateSettlement(settlement: unknown, index: number): EffectSettlement {
  const { key, state } = objectInput<EffectSettlement>(settlement, 'invalid_argument', `outcome.effects[${index}] must be an object { key, state }`);
  checkKey('invalid_argument', `outcome.effects[${index}].key`, key);
  return { key, state: validateSettledState(state) };
}

export function validateSettledState(state: unknown): 'confirmed' | 'failed' {
  if (state !== 'confirmed' && state !== 'failed') throw new VigilError('invalid_argument', `an effect is settled 'confirmed' or 'failed', got ${describe(state)}`);
  return state;
}

export function validateEffectQuery(query: unknown): CheckedEffectQuery {
  if (query !== undefined && (typeof query !== 'object' || query === null)) {
    throw new VigilError('invalid_argument', `an effect query must be an object { which?, limit? }, got ${describe(query)}`);
  }
  const { which = 'unknown', limit = 100 } = (query ?? {}) as EffectQuery;
  if (which !== 'unknown' && which !== 'all') throw new VigilError('invalid_argument', `which is 'unknown' or 'all', got ${describe(which)}`);
  return { which, limit: validateLimit(limit, 1000) };
}

/** JSON with object keys sorted: the same call gives the same text (and hash, and key) however its input was built. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
