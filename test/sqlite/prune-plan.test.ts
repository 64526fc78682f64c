/**
 * Retention's prune (src/store/sqlite/prune.ts) takes the oldest finished
 * rows, a batch at a time, under the inbox's write lock: each batch must
 * cost what it removes, not what the inbox holds. Each kind that grows with
 * the traffic (events, sent messages) is read oldest first through its own
 * index, without sorting. Reading done events through the status index and
 * sorting them all made every prune call read the inbox's whole history of
 * done events: seconds per batch of 1,000 at 100,000 events kept.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { FINISHED_EVENTS, SENT_MESSAGES } from '../../src/store/sqlite/prune.js';
import { useTempStores } from './temp-dirs.js';

const stores = useTempStores();

function planOf(sql: string, params: Record<string, number>): string[] {
  const file = join(stores.dir(), 'alice.db');
  const db = new Database(file);
  try {
    migrate(db, file);
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail);
  } finally {
    db.close();
  }
}

describe("prune's reads", () => {
  it('take the oldest done and dead events from events_finished, a range, unsorted', () => {
    const plan = planOf(FINISHED_EVENTS, { done: 1_000, dead: 2_000, limit: 1_000 });
    expect(plan).toEqual(['SEARCH events USING INDEX events_finished (finished_at<?)']);
  });

  it('take the oldest sent messages from outbox_sent, a range, unsorted', () => {
    const plan = planOf(SENT_MESSAGES, { cutoff: 1_000, limit: 1_000 });
    expect(plan[0]).toMatch(/^SEARCH outbox USING (COVERING )?INDEX outbox_sent \(sent_at>\? AND sent_at<\?\)$/);
    expect(plan.filter((line) => line.includes('TEMP B-TREE'))).toEqual([]);
  });
});
