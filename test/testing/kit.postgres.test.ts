/**
 * The testing kit on PostgreSQL: throwawayStore makes a fresh schema (and
 * drops it on close), and a before-finish crash tells the same story as on
 * SQLite; the reference scenarios written with the kit print the same lines.
 */
import { expect, it } from 'vitest';
import { runKitScenarios } from '../../examples/testing-kit.js';
import { defineAgent } from '../../src/index.js';
import { crashingStore, runOnce, throwawayStore } from '../../src/testing/index.js';
import { EXPECTED } from '../examples/expected-output.js';
import { useTestDatabase } from '../postgres/test-database.js';

const db = useTestDatabase('testing_kit');

const schemaExists = async (schema: string): Promise<boolean> =>
  (await db.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema])).length > 0;

it('a throwaway schema; a worker dies before finish; the retry queues one reply; close drops the schema', async () => {
  const kit = await throwawayStore({ url: db.url, leaseTtlMs: 30_000, retryBackoff: { baseMs: 0 } });
  const schema = kit.schema!;
  expect(kit.dir).toBeUndefined();
  expect(await schemaExists(schema)).toBe(true);
  try {
    let runs = 0;
    const agent = defineAgent({
      run: async () => {
        runs += 1;
        return { messages: ['done'] };
      },
    });
    const inbox = kit.store.inbox('pg');
    await inbox.ingest({ source: 'chat', sourceId: 'm1' });
    const crashing = crashingStore(kit.store, { at: 'before-finish' });
    expect((await runOnce({ store: crashing, inbox: 'pg', agent, holder: 'A', clock: kit.clock })).outcome).toBe('crashed');
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 0, undeliverable: 0, rejected: 0 });
    kit.clock.advance(30_001);
    expect((await runOnce({ store: crashing, inbox: 'pg', agent, holder: 'B', clock: kit.clock })).outcome).toBe('worked');
    expect(runs).toBe(2);
    expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    expect(await inbox.getEvent('chat', 'm1')).toMatchObject({ status: 'done', attempts: 2 });
  } finally {
    await kit.close();
  }
  expect(await schemaExists(schema)).toBe(false);
});

it('prints the reference output for all eight scenarios, written with vigil-agents/testing (PostgreSQL)', async () => {
  expect(await runKitScenarios(db.url)).toEqual(EXPECTED);
});
