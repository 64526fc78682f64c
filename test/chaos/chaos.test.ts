/**
 * The short chaos run on SQLite (chaos/harness.ts): three worker processes
 * of the real runtime on one store directory, SIGKILLed at random moments
 * and at named points (in finish, in dispatch...), with poison, throwing,
 * flaky and stalling events, duplicates, timers and approvals. Every
 * invariant must hold. `npm run chaos` runs the long one.
 */
import { describe, it } from 'vitest';
import { PRESETS } from '../../chaos/config.js';
import { runChaos } from '../../chaos/harness.js';
import { expectCleanChaos } from './expect-clean.js';

describe('chaos: SIGKILLed workers on one SQLite store', () => {
  it('every invariant holds (short run, at-least-once delivery)', async () => {
    expectCleanChaos(await runChaos({ ...PRESETS.short, store: 'sqlite' }));
  }, 180_000);
});
