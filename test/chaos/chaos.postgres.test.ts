/**
 * The short chaos run on PostgreSQL (see chaos.test.ts), in a schema of
 * this file's database, with at-most-once delivery: no message may reach
 * the channel twice, whatever is killed between recording and sending.
 */
import { describe, it } from 'vitest';
import { PRESETS } from '../../chaos/config.js';
import { runChaos } from '../../chaos/harness.js';
import { useTestDatabase } from '../postgres/test-database.js';
import { expectCleanChaos } from './expect-clean.js';

const db = useTestDatabase('chaos');

describe('chaos: SIGKILLed workers on one PostgreSQL database', () => {
  it('every invariant holds (short run, at-most-once delivery)', async () => {
    expectCleanChaos(await runChaos({ ...PRESETS.short, store: 'postgres', url: db.url, schema: db.freshSchema('chaos'), atMostOnce: true }));
  }, 180_000);
});
