/**
 * Issue 49, findings 1 and 6, on PostgreSQL through the CLI: a bigint past
 * 2^53 in one inbox's row (an older version's, or one written by hand) made
 * every read that met it fail. `vigil status` over every inbox now lists
 * the others and that one as unreadable (exit 1); `vigil timers` of that
 * inbox fails with a message naming the value, and of another still reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('bad_rows');
const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

describe("vigil status and timers beside one inbox's row out of range", () => {
  it('status lists the others and the bad one; timers of the others still read', async () => {
    const schema = db.freshSchema();
    const store = await openStore(db.url, { schema });
    try {
      for (const id of ['alice', 'bob', 'carol']) {
        await store.inbox(id).ingest({ source: 'test', sourceId: id });
        await store.inbox(id).addTimer({ id: 'poll', due: Date.now() + 60_000, every: 3_600_000 });
      }
    } finally {
      await store.close();
    }
    await db.query(`UPDATE ${schema}.inboxes SET gen = 9223372036854775807 WHERE inbox_id = 'bob'`);
    await db.query(`UPDATE ${schema}.timers SET due = 9007199254740993 WHERE inbox_id = 'bob'`);
    const flag = ['--store', `${db.url}${db.url.includes('?') ? '&' : '?'}schema=${schema}`];

    const status = await harness.cli(['status', ...flag]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^alice +1 +0 +0 +0 /m);
    expect(status.stdout).toMatch(/^bob +unreadable: bigint 9223372036854775807 is not a safe JavaScript integer/m);
    expect(status.stdout).toMatch(/^carol +1 +0 +0 +0 /m);
    expect(status.stderr).toContain('1 of 3 inboxes could not be read (listed above)');

    const alice = await harness.cli(['timers', 'alice', ...flag]);
    expect([alice.code, alice.stdout]).toEqual([0, expect.stringMatching(/^poll +\d{4}-\d\d-\d\dT/m)]);
    const bob = await harness.cli(['timers', 'bob', ...flag]);
    expect([bob.code, bob.stderr]).toEqual([1, expect.stringContaining('bigint 9007199254740993 is not a safe JavaScript integer')]);
  });
});
