/**
 * Payloads, sessions, memory values and approval actions are stored as
 * JSON. A value must survive the round trip unchanged: what JSON.stringify
 * would silently drop or alter (functions, NaN, Map, BigInt, cycles) is
 * refused, because storing something other than what was given is a quiet
 * data loss.
 */
import { VigilError, type VigilErrorCode } from '../../../errors.js';

/**
 * The deepest nesting of arrays and objects a stored value may have. Far
 * beyond any real payload (webhooks nest about fifteen levels; the service
 * refuses bodies over 64, read-body.ts), and far from where a walk of it
 * (this check, JSON.stringify, an agent's own code) would run out of stack:
 * a library caller's value nested a hundred thousand deep is an
 * invalid_event, not a RangeError.
 */
export const MAX_STORED_DEPTH = 512;

/** Serialises `value`, refusing what JSON cannot carry and anything over `maxBytes` as UTF-8. */
export function toJson(code: VigilErrorCode, what: string, value: unknown, maxBytes: number): string {
  const problem = unrepresentable(value, new Set(), 0);
  if (problem !== null) throw new VigilError(code, `${what}${problem.path} ${problem.why}`);
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    throw new VigilError(code, `${what} is ${bytes} bytes as JSON; the limit is ${maxBytes}`);
  }
  return json;
}

interface Unrepresentable {
  /** Where, relative to the value checked: `.a[2]`; built only on the way out of a failure. */
  path: string;
  why: string;
  /** Said of the value as a whole (its depth): no path, which would be hundreds of steps long. */
  whole?: true;
}

const TOO_DEEP: Unrepresentable = { path: '', why: `nests deeper than ${MAX_STORED_DEPTH} levels of arrays and objects`, whole: true };

/** `problem`, found at `step` inside the value: its path gains the step. */
const inside = (step: string, problem: Unrepresentable): Unrepresentable => (problem.whole ? problem : { path: `${step}${problem.path}`, why: problem.why });

/**
 * The first part of `value` that JSON cannot carry unchanged, or null. Runs
 * on every ingest, so the common case allocates nothing: no path strings
 * and no entry arrays until something is wrong.
 */
function unrepresentable(value: unknown, seen: Set<object>, depth: number): Unrepresentable | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : { path: '', why: `is ${value}, which JSON cannot represent` };
    case 'object':
      break;
    default:
      return { path: '', why: `is a ${typeof value}, which is not JSON-serialisable` };
  }
  if (value === null || value instanceof Date) return null;
  if (depth === MAX_STORED_DEPTH) return TOO_DEEP;
  if (seen.has(value)) return { path: '', why: 'contains a cycle, which is not JSON-serialisable' };
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = unrepresentable(value[i], seen, depth + 1);
      if (problem !== null) return inside(`[${i}]`, problem);
    }
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      return { path: '', why: `is a ${value.constructor?.name ?? 'class instance'}; use plain objects and arrays` };
    }
    // A plain object's prototype has no enumerable keys: for...in sees only its own.
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      // An undefined property is left out by JSON, as everywhere in JS.
      if (item === undefined) continue;
      const problem = unrepresentable(item, seen, depth + 1);
      if (problem !== null) return inside(`.${key}`, problem);
    }
  }
  seen.delete(value);
  return null;
}
