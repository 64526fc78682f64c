/** SQLite's failures reach callers as VigilErrors with a code, and nothing half-written. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/index.js';
import { useTempStores } from './temp-dirs.js';

describe('SQLite errors become VigilErrors (SQLite)', () => {
  const temp = useTempStores();

  it('an inbox file that is not a database is store_unavailable, and other inboxes keep working', async () => {
    const dir = temp.dir();
    writeFileSync(join(dir, 'broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));
    const { store } = await temp.open(dir);
    const error = await store
      .inbox('broken')
      .ingest({ source: 's', sourceId: '1' })
      .then(() => null, (e: unknown) => e);
    expect(isVigilError(error, 'store_unavailable')).toBe(true);
    expect((error as Error).message).toMatch(/not a SQLite database.*broken\.db.*nothing was written/);
    expect((error as { retryable: boolean }).retryable).toBe(true);
    expect(await store.inbox('fine').ingest({ source: 's', sourceId: '1' })).toBe(true);
  });

  it('a ready index that is not a database fails openStore with store_unavailable', async () => {
    const dir = temp.dir();
    writeFileSync(join(dir, '_vigil-ready.db'), 'garbage '.repeat(200));
    await expect(temp.open(dir)).rejects.toMatchObject({ code: 'store_unavailable' });
  });
});
