/**
 * Small helpers shared by the rule files. Public contract only: nothing here
 * knows which backend runs the suite.
 */
import { expect } from 'vitest';
import { VigilError, type Inbox, type VigilErrorCode } from '../../src/index.js';

/** Awaits `promise` and asserts it rejected with a VigilError of this code. */
export async function expectVigilError(promise: Promise<unknown>, code: VigilErrorCode): Promise<VigilError> {
  const outcome = await promise.then(
    (value: unknown) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a VigilError ${code}, but the call resolved to ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(VigilError);
  expect((outcome.error as VigilError).code).toBe(code);
  return outcome.error as VigilError;
}

/** Asserts a synchronous call threw a VigilError of this code. */
export function expectVigilErrorSync(fn: () => unknown, code: VigilErrorCode): VigilError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe(code);
    return error as VigilError;
  }
  throw new Error(`expected a VigilError ${code}, but the call returned`);
}

/** Ingests `sourceId`s under source 's'; returns nothing, asserts each was new. */
export async function ingestAll(inbox: Inbox, ...sourceIds: string[]): Promise<void> {
  for (const sourceId of sourceIds) {
    expect(await inbox.ingest({ source: 's', sourceId, payload: { n: sourceId } })).toBe(true);
  }
}

/** Takes the lease for `holder` and asserts it got it. */
export async function lease(inbox: Inbox, holder: string): Promise<number> {
  const gen = await inbox.acquire(holder);
  expect(gen).not.toBeNull();
  return gen as number;
}

/** The status of each event, by sourceId, oldest first. */
export async function statuses(inbox: Inbox): Promise<Record<string, string>> {
  const rows = await inbox.events({ limit: 10_000 });
  return Object.fromEntries(rows.map((row) => [row.sourceId, row.status]));
}
