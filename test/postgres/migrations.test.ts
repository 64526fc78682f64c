/**
 * The PostgreSQL schema's migrations: applied once however many machines
 * open a new schema at the same time, all or nothing, and a schema newer
 * than the code is refused rather than guessed at.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, VigilError, type Store } from '../../src/index.js';
import { latestVersion, migrations } from '../../src/store/postgres/migrate.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('migrations');
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function open(schema: string): Promise<Store> {
  const store = await openStore(db.url, { schema });
  opened.push(store);
  return store;
}

async function ledger(schema: string): Promise<{ version: number; name: string }[]> {
  return db.query(`SELECT version, name FROM ${schema}.vigil_migrations ORDER BY version`);
}

async function tables(schema: string): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
    [schema],
  );
  return rows.map((row) => row.name);
}

/** Every function in the schema: what it is called with, its body and its settings. */
async function functions(schema: string): Promise<{ signature: string; body: string; config: string[] | null }[]> {
  return db.query(
    `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature, p.prosrc AS body, p.proconfig AS config
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
     ORDER BY p.proname`,
    [schema],
  );
}

/**
 * A schema one step behind the code: the tables of every step but the last,
 * and a function as an older Vigil defined it (vigil_claim with another
 * body and no plan_cache_mode). An upgrade must leave it exactly as a new
 * schema is.
 */
async function schemaOneStepBehind(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query(
      'CREATE TABLE vigil_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())',
    );
    for (const step of migrations().slice(0, latestVersion() - 1)) {
      await client.query(step.sql);
      await client.query('INSERT INTO vigil_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
    }
    await client.query(`
      CREATE FUNCTION vigil_claim(p_inbox text, p_holder text, p_gen bigint, p_now bigint, p_max_attempts integer,
                                  p_batch_limit integer, p_base bigint, p_max bigint, p_gap bigint)
      RETURNS TABLE (kind text, id bigint, source text, source_id text, payload text, attempts integer, last_error text)
      LANGUAGE plpgsql SET enable_seqscan = off AS $$ BEGIN RETURN; END $$`);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

describe('PostgreSQL migrations', () => {
  it('eight stores opening a new schema at once: all open, every step applied exactly once', async () => {
    const schema = db.freshSchema('concurrent');
    const stores = await Promise.all(Array.from({ length: 8 }, () => open(schema)));
    const steps = await ledger(schema);
    expect(steps.map((s) => s.version)).toEqual(Array.from({ length: latestVersion() }, (_, i) => i + 1));
    expect(steps.map((s) => s.name)).toEqual(migrations().map((m) => m.name));
    expect(await tables(schema)).toEqual(['approvals', 'effects', 'ended_sessions', 'events', 'inbox_rate', 'inbox_settings', 'inboxes', 'memory', 'operator_actions', 'outbox', 'outbox_failures', 'outbox_progress', 'sessions', 'timers', 'tombstones', 'usage', 'vigil_migrations', 'work']);
    // They all work on the same rows.
    expect(await stores[0]!.inbox('a').ingest({ source: 's', sourceId: '1' })).toBe(true);
    expect(await stores[7]!.inbox('a').ingest({ source: 's', sourceId: '1' })).toBe(false);
  });

  it('a schema one step behind upgrades: its functions end up exactly those of a new schema, and they work', async () => {
    const old = db.freshSchema('behind');
    await schemaOneStepBehind(old);
    const fresh = db.freshSchema('fresh');
    await open(fresh);
    const store = await open(old);
    expect((await ledger(old)).map((s) => s.version)).toEqual(Array.from({ length: latestVersion() }, (_, i) => i + 1));
    // The old claim is replaced: nothing of the older definitions is left over.
    expect(await functions(old)).toEqual(await functions(fresh));
    const inbox = store.inbox('a');
    await inbox.ingest({ source: 's', sourceId: '1' });
    const gen = (await inbox.acquire('w'))!;
    const ids = (await inbox.claimBatch('w', gen)).map((e) => e.id);
    expect(ids).toHaveLength(1);
    expect(await inbox.finish('w', gen, ids, { messages: ['done'] })).toBe(true);
    expect((await inbox.stats()).events.done).toBe(1);
  });

  it('every function that reads through indexes only also plans once per connection (functions/README.md)', async () => {
    const schema = db.freshSchema('plans');
    await open(schema);
    const rows = await db.query<{ name: string; config: string[] }>(
      `SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = $1 AND 'enable_seqscan=off' = ANY (p.proconfig) ORDER BY p.proname`,
      [schema],
    );
    expect(rows.map((row) => row.name)).toEqual(['vigil_acquire', 'vigil_acquire_and_claim', 'vigil_claim', 'vigil_events_in_play', 'vigil_finish', 'vigil_finish_and_claim', 'vigil_ingest', 'vigil_insert_events', 'vigil_lock_inbox', 'vigil_refresh_work', 'vigil_release']);
    for (const row of rows) expect({ name: row.name, config: row.config }).toEqual({ name: row.name, config: expect.arrayContaining(['plan_cache_mode=force_generic_plan']) });
  });

  it('reopening an up-to-date schema applies nothing and keeps the data', async () => {
    const schema = db.freshSchema('reopen');
    await (await open(schema)).inbox('a').ingest({ source: 's', sourceId: '1' });
    const before = await db.query(`SELECT version, applied_at FROM ${schema}.vigil_migrations ORDER BY version`);
    const again = await open(schema);
    expect(await db.query(`SELECT version, applied_at FROM ${schema}.vigil_migrations ORDER BY version`)).toEqual(before);
    expect((await again.inbox('a').stats()).events.pending).toBe(1);
  });

  it('a schema migrated by a newer Vigil is refused with schema_too_new, and left as it is', async () => {
    const schema = db.freshSchema('newer');
    await (await open(schema)).inbox('a').ingest({ source: 's', sourceId: '1' });
    const newer = latestVersion() + 1;
    await db.query(`INSERT INTO ${schema}.vigil_migrations (version, name) VALUES ($1, 'from-the-future.sql')`, [newer]);
    const error = await openStore(db.url, { schema }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('schema_too_new');
    expect((error as VigilError).message).toContain(`version ${newer}`);
    expect((await ledger(schema)).map((s) => s.version)).toContain(newer);
    expect(await db.query(`SELECT source_id FROM ${schema}.events`)).toEqual([{ source_id: '1' }]);
  });

  it('a migration that fails leaves nothing behind; the next open, once the cause is gone, applies them all', async () => {
    const schema = db.freshSchema('broken');
    // Something else already uses a name migration 003 needs.
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.outbox (note text)`);
    await expect(openStore(db.url, { schema })).rejects.toThrow(/outbox/);
    expect(await tables(schema)).toEqual(['outbox']); // steps 001 and 002 rolled back with it
    await db.query(`DROP TABLE ${schema}.outbox`);
    await open(schema);
    expect((await ledger(schema)).map((s) => s.version)).toEqual(Array.from({ length: latestVersion() }, (_, i) => i + 1));
  });

  it("a schema name that would need quoting is refused with invalid_options", async () => {
    for (const schema of ['Mixed', 'has-dash', '1digit', 'x'.repeat(57), "x; DROP SCHEMA public"]) {
      await expect(openStore(db.url, { schema })).rejects.toMatchObject({ code: 'invalid_options' });
    }
    const viaUrl = `${db.url}?schema=${encodeURIComponent('Bad Name')}`;
    await expect(openStore(viaUrl)).rejects.toMatchObject({ code: 'invalid_options' });
  });

  it('the schema can come from the URL (?schema=)', async () => {
    const schema = db.freshSchema('url');
    const store = await openStore(`${db.url}?schema=${schema}`);
    opened.push(store);
    await store.inbox('a').ingest({ source: 's', sourceId: '1' });
    expect(await db.query(`SELECT inbox_id FROM ${schema}.inboxes`)).toEqual([{ inbox_id: 'a' }]);
  });
});
