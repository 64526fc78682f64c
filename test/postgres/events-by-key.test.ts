/**
 * Events have no index on id alone (migration 013): their key is the one R1
 * stores them under, and every statement reaches an event through it or
 * through events_by_status (inbox_id, status, id). Every ingest, claim and
 * finish wrote an entry into the id index, which nothing on a hot path
 * read. What must hold without it: the statements that went by id alone, an
 * export's pages and a prune's deletes, still read what they return, not
 * the inbox's history; and the table keeps a key and a replica identity.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { EVENTS_PAGE } from '../../src/store/postgres/lifecycle.js';
import { FINISHED_EVENTS } from '../../src/store/postgres/prune.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('events_by_key');

/** A big inbox among others: `big` finished events at 1..big (every seventh dead, so statuses interleave in id order), and small inboxes beside it. */
const BIG = 20_000;
let schema = '';
let store: Store;

beforeAll(async () => {
  schema = db.freshSchema('key');
  store = await openStore(db.url, { schema });
  await store.inbox('big').ingest({ source: 'chat', sourceId: 'first' });
  await db.query(
    `INSERT INTO ${schema}.events (inbox_id, source, source_id, payload, status, attempts, received_at, finished_at, claim_gen)
     SELECT 'big', 'chat', 'm-' || n, '{}', CASE WHEN n % 7 = 0 THEN 'dead' ELSE 'done' END, 1, n, n, n
     FROM generate_series(1, ${BIG}) AS n`,
  );
  await db.query(
    `INSERT INTO ${schema}.events (inbox_id, source, source_id, payload, received_at)
     SELECT 'small-' || i, 'chat', 'm-' || n, '{}', n FROM generate_series(1, 500) AS i, generate_series(1, 10) AS n`,
  );
  await db.query(`ANALYZE ${schema}.events`);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The statement's plan as it ran, rolled back: every scan of events, with the rows it read. */
async function scansOfEvents(sql: string, params: unknown[]): Promise<{ node: string; index: string | null; rows: number }[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL search_path TO ${schema}`);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
    const scans: { node: string; index: string | null; rows: number }[] = [];
    const walk = (node: PlanNode): void => {
      if (node['Relation Name'] === 'events' && node['Node Type'].includes('Scan')) {
        scans.push({ node: node['Node Type'], index: node['Index Name'] ?? null, rows: node['Actual Rows'] * node['Actual Loops'] });
      }
      node.Plans?.forEach(walk);
    };
    walk(rows[0]!['QUERY PLAN'][0].Plan);
    return scans;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}

const rowsRead = (scans: { rows: number }[]): number => scans.reduce((sum, scan) => sum + scan.rows, 0);

describe('events without an index on id', () => {
  it('the table is keyed by (inbox_id, source, source_id), which logical replication also uses', async () => {
    const indexes = await db.query<{ name: string; definition: string }>(
      'SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [schema, 'events'],
    );
    expect(indexes.filter((index) => /\(id\)$/.test(index.definition))).toEqual([]);
    const [identity] = await db.query<{ index: string }>(
      `SELECT i.indexrelid::regclass::text AS index FROM pg_index i WHERE i.indrelid = '${schema}.events'::regclass AND i.indisreplident`,
    );
    expect(identity?.index).toMatch(/events_inbox_id_source_source_id_key$/);
  });

  it("an export's page of a big inbox reads the page from each status's range, not the inbox", async () => {
    const page = 1_000; // lifecycle.ts, PAGE
    const scans = await scansOfEvents(EVENTS_PAGE, ['big', 5_000]);
    expect(scans.every((scan) => scan.index === 'events_by_status')).toBe(true);
    expect(rowsRead(scans)).toBeLessThanOrEqual(page + 4);
  });

  it("a prune's batch deletes the rows it picked where it found them, reading about what it removes", async () => {
    const limit = 1_000;
    const scans = await scansOfEvents(FINISHED_EVENTS, ['big', 10_000, 10_000, limit]);
    expect(scans.map((scan) => scan.node)).not.toContain('Seq Scan');
    expect(rowsRead(scans)).toBeLessThanOrEqual(3 * limit);
  });

  it('an export of the big inbox still has every event, in id order', async () => {
    const keys: string[] = [];
    for await (const record of store.exportInbox('big')) if (record.type === 'event') keys.push(record.sourceId);
    // Ids follow insertion: the ingested event first, then m-1 … m-BIG as generate_series made them.
    expect(keys).toEqual(['first', ...Array.from({ length: BIG }, (_, i) => `m-${i + 1}`)]);
  });
});
