/**
 * A statement that may change several rows and may also abort half-way (a
 * NOT NULL or CHECK constraint that aborts by default) gets a statement
 * journal: SQLite copies every page it touches first, so that it could undo
 * that statement alone, and past 64 KiB writes the copies to a temporary
 * file. On the hot paths that copy cost up to half of the statement
 * (ingest.ts, claim.ts). Their statements are OR IGNORE, with values no
 * constraint refuses, so that nothing can abort them: in SQLite's program
 * for each, no instruction halts the statement with an error.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_FRESH, CLAIM_ONE, KILL_EXHAUSTED, RESET_ABANDONED } from '../../src/store/sqlite/claim.js';
import { MARK_DEAD, MARK_DONE, MARK_FAILED } from '../../src/store/sqlite/finish.js';
import { INSERT_EVENT, insertManySql } from '../../src/store/sqlite/ingest.js';
import { sqliteBackendOf } from '../../src/store/sqlite/sqlite-store.js';
import { useTempStores } from './temp-dirs.js';

interface Instruction {
  opcode: string;
  p1: number;
}

describe('statements on the hot paths keep no statement journal (SQLite)', () => {
  const temp = useTempStores();

  const hotPaths: Record<string, string[]> = {
    'ingest (one event, and batches of 2, 4 and 32, with and without tombstones)': [
      INSERT_EVENT,
      ...[2, 4, 32].flatMap((rows) => [insertManySql(rows, false), insertManySql(rows, true)]),
    ],
    claim: [RESET_ABANDONED, KILL_EXHAUSTED, CLAIM_ONE, CLAIM_FRESH],
    finish: [MARK_DONE, MARK_FAILED, MARK_DEAD],
  };

  for (const [path, statements] of Object.entries(hotPaths)) {
    it(`${path}: no instruction can abort the statement`, async () => {
      const { store } = await temp.open(temp.dir());
      await store.inbox('alice').ingest({ source: 's', sourceId: 'first' });
      const db = sqliteBackendOf(store).connection('alice', false)!.db;
      for (const sql of statements) {
        const named = [...sql.matchAll(/@(\w+)/g)].map((match) => match[1]!);
        const parameters = named.length > 0 ? Object.fromEntries(named.map((name) => [name, null])) : Array(sql.split('?').length - 1).fill(null);
        const program = db.prepare(`EXPLAIN ${sql}`).all(parameters) as Instruction[];
        const aborts = program.filter((op) => op.opcode === 'HaltIfNull' || (op.opcode === 'Halt' && op.p1 !== 0));
        expect({ sql, aborts }).toEqual({ sql, aborts: [] });
      }
    });
  }
});
