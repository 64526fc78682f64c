/** Shared by the test/unit/validate-*.test.ts files. */
import { expect } from 'vitest';
import { VigilError, type VigilErrorCode } from '../../src/errors.js';

/** Runs `run`, asserts it threw a VigilError with `code`, and returns its message. */
export function refusal(run: () => unknown, code: VigilErrorCode): string {
  return refusalError(run, code).message;
}

/** As refusal(), the error itself (for its `field`). */
export function refusalError(run: () => unknown, code: VigilErrorCode): VigilError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`expected a VigilError ${code}, but the call returned`);
  expect(thrown).toBeInstanceOf(VigilError);
  expect((thrown as VigilError).code).toBe(code);
  return thrown as VigilError;
}
