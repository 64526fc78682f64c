/**
 * The run steps' commits wait for their WAL flush (functions/run-step.sql,
 * commit-without-flush.sql): acquireAndClaim carries an acquire (a
 * generation must never be handed out twice) and finishAndClaim a finish
 * (a done event and its reply), so neither may commit as a claim or a
 * release does, without waiting, even when the claim or the release is
 * all that follows. The functions say so by leaving the transaction's
 * synchronous_commit as it was; a refused step, which changed nothing,
 * turns it off as acquire does.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('run_step_durability');
const opened: Store[] = [];
const clients: pg.Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.end()));
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const TTL = 60_000;
/** p_max_attempts, p_base, p_max, p_gap, as workParams gives them for the defaults that matter here. */
const WORK = [5, 1_000, 60_000, 0];

async function setUp(...sourceIds: string[]): Promise<pg.Client> {
  const schema = db.freshSchema('steps');
  const store = await openStore(db.url, { schema });
  opened.push(store);
  for (const sourceId of sourceIds) await store.inbox('alice').ingest({ source: 's', sourceId });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  clients.push(client);
  await client.query(`SET search_path TO ${schema}`);
  await client.query('SET synchronous_commit = on'); // the test server's default is off
  return client;
}

/** Runs `sql` in a transaction and tells whether its commit would wait for the flush; rolls it back. */
async function waitsForFlush(client: pg.Client, sql: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[]; waits: boolean }> {
  await client.query('BEGIN');
  try {
    const { rows } = await client.query<Record<string, unknown>>(sql, params);
    const [setting] = (await client.query<{ value: string }>("SELECT current_setting('synchronous_commit') AS value")).rows;
    return { rows, waits: setting?.value === 'on' };
  } finally {
    await client.query('ROLLBACK');
  }
}

const ACQUIRE_AND_CLAIM = 'SELECT * FROM vigil_acquire_and_claim($1, $2, NULL, $3, $4, 100, $5, $6, $7)';
const FINISH_AND_CLAIM = `SELECT * FROM vigil_finish_and_claim($1, $2, $3, $4, NULL, false, ARRAY['reply'], ARRAY[false], false, NULL,
                                  '{}'::text[], '{}'::text[], 1000000, '{}'::text[], '{}'::text[], '{}'::bigint[], '{}'::bigint[], NULL::jsonb, NULL, false,
                                  $5, 100, $6, $7, $8, $9, '{}'::text[], '{}'::text[], '{}'::text[], '{}'::text[], '{}'::text[], '{}'::text[])`;

describe('PostgreSQL run steps: durable commits', () => {
  it('acquireAndClaim waits for the flush, whether it claims or releases for want of work; refused, it does not', async () => {
    const client = await setUp('a');
    const claimed = await waitsForFlush(client, ACQUIRE_AND_CLAIM, ['alice', 'A', TTL, ...WORK]);
    expect(claimed.rows.map((row) => row.kind)).toEqual(['lease', 'claimed']);
    expect(claimed.waits).toBe(true);
    // The check can tell: a claim alone commits without waiting.
    expect((await waitsForFlush(client, 'SELECT * FROM vigil_claim($1, $2, 1, NULL, $3, 100, $4, $5, $6)', ['alice', 'nobody', ...WORK])).waits).toBe(false);

    const empty = await setUp(); // an inbox with nothing to claim: the step takes the lease and gives it back
    await empty.query("SELECT vigil_lock_inbox('alice', true)");
    const released = await waitsForFlush(empty, ACQUIRE_AND_CLAIM, ['alice', 'A', TTL, ...WORK]);
    expect(released.rows.map((row) => row.kind)).toEqual(['lease']);
    expect(released.waits).toBe(true);

    await client.query(ACQUIRE_AND_CLAIM, ['alice', 'B', TTL, ...WORK]); // B holds it now
    const refused = await waitsForFlush(client, ACQUIRE_AND_CLAIM, ['alice', 'A', TTL, ...WORK]);
    expect(refused.rows).toEqual([]);
    expect(refused.waits).toBe(false);
  });

  it('finishAndClaim waits for the flush, whether it claims the next batch or releases the lease', async () => {
    const client = await setUp('a', 'b');
    const [lease, ...events] = (await client.query<{ kind: string; id: string; gen: string }>(
      'SELECT * FROM vigil_acquire_and_claim($1, $2, NULL, $3, $4, 1, $5, $6, $7)',
      ['alice', 'A', TTL, ...WORK],
    )).rows;
    const gen = Number(lease!.gen);
    const first = [Number(events[0]!.id)];
    const next = await waitsForFlush(client, FINISH_AND_CLAIM, ['alice', 'A', gen, first, TTL, ...WORK]);
    expect(next.rows.map((row) => row.kind)).toEqual(['finished', 'claimed']);
    expect(next.waits).toBe(true);

    // Finish a and b's claim for real, then the last finish: nothing left, the lease released in the same commit.
    const [, second] = (await client.query<{ kind: string; id: string }>(FINISH_AND_CLAIM, ['alice', 'A', gen, first, TTL, ...WORK])).rows;
    const last = await waitsForFlush(client, FINISH_AND_CLAIM, ['alice', 'A', gen, [Number(second!.id)], TTL, ...WORK]);
    expect(last.rows.map((row) => row.kind)).toEqual(['finished']);
    expect(last.waits).toBe(true);
  });
});
