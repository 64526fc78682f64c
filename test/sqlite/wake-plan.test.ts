/**
 * The wake query (src/store/sqlite/wake.ts) runs inside every write
 * transaction, so it must cost what the inbox has to do, not what it holds:
 * every part probes an index. A part that walked a table or an index range
 * made each ingest, claim and finish slower as held outbox messages piled up.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { WAKE_SQL } from '../../src/store/sqlite/wake.js';
import { useTempStores } from './temp-dirs.js';

const stores = useTempStores();

/** Single-row tables: reading them whole is one row. */
const ONE_ROW_TABLES = ['lease', 'outbox_pacing'];

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
      // The outbox parts each have an index shaped for their min(): not outbox_held, whose range is every held message.
      const outbox = reads.filter((line) => line.startsWith('SEARCH outbox'));
      expect(outbox).toEqual([
        'SEARCH outbox USING INDEX outbox_unreserved (urgent=?)',
        'SEARCH outbox USING INDEX outbox_unreserved (urgent=?)',
        'SEARCH outbox USING INDEX outbox_reserved',
      ]);
    } finally {
      db.close();
    }
  });

  it('answers the same with hundreds of messages held as with one', async () => {
    // The behaviour the indexes serve: the sendAt the ready index gets is right either way.
    const { store, clock } = await stores.open(stores.dir(), { outboxGapMs: 60_000, synchronous: 'normal' });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'first' });
    let gen = (await inbox.acquire('w'))!;
    let [event] = await inbox.claimBatch('w', gen);
    await inbox.finish('w', gen, [event!.id], { messages: ['one'] });
    await inbox.release('w', gen);
    expect(await store.nextWake()).toMatchObject({ wakeAt: null, sendAt: clock.now() });
    const sent: string[] = [];
    expect(await inbox.dispatch((body) => void sent.push(body))).toBe(1);
    expect(sent).toEqual(['one']);
    const lastSend = clock.now();
    clock.advance(1);
    for (let i = 0; i < 500; i++) {
      await inbox.ingest({ source: 'chat', sourceId: `m${i}` });
      gen = (await inbox.acquire('w'))!;
      [event] = await inbox.claimBatch('w', gen);
      await inbox.finish('w', gen, [event!.id], { messages: [`m${i}`] });
    }
    await inbox.release('w', gen);
    // Paced: the gap runs from the last send, one minute after it.
    expect(await store.nextWake()).toMatchObject({ wakeAt: null, sendAt: lastSend + 60_000 });
    expect((await inbox.stats()).outbox).toMatchObject({ held: 500 });
  });
});
