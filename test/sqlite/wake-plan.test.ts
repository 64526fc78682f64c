/**
 * The wake query (src/store/sqlite/wake.ts) runs inside every write
 * transaction, so it must cost what the inbox has to do, not what it holds:
 * every part probes an index. A part that walked a table or an index range
 * made each ingest, claim and finish slower as held outbox messages piled up.
 * (That the answers stay right with hundreds held is in the R9 conformance tests.)
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { WAKE_SQL } from '../../src/store/sqlite/wake.js';
import { useTempStores } from './temp-dirs.js';

const stores = useTempStores();

/** Single-row tables: reading them whole is one row. */
const ONE_ROW_TABLES = ['lease', 'outbox_pacing', 'settings', 'outbox_reservation', 'spend_pause'];

describe('the wake query', () => {
  it('reads every multi-row table through an index', () => {
    const file = join(stores.dir(), 'alice.db');
    const db = new Database(file);
    try {
      migrate(db, file);
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${WAKE_SQL}`).all({ maxAttempts: 3, baseMs: 1000, maxMs: 60_000 }) as { detail: string }[]).map(
        (row) => row.detail,
      );
      const reads = plan.filter((line) => /^(SCAN|SEARCH) /.test(line) && line !== 'SCAN CONSTANT ROW');
      expect(reads.length).toBeGreaterThanOrEqual(10);
      const scans = reads.filter((line) => line.startsWith('SCAN') && !ONE_ROW_TABLES.includes(line.slice('SCAN '.length)));
      expect(scans).toEqual([]);
      // The outbox parts each read the oldest held message of one kind, not a range of every held message.
      const outbox = reads.filter((line) => line.startsWith('SEARCH outbox'));
      expect(outbox).toEqual(['SEARCH outbox USING INDEX outbox_held (urgent=?)', 'SEARCH outbox USING INDEX outbox_held (urgent=?)']);
    } finally {
      db.close();
    }
  });
});
