/**
 * PostgreSQL's text cannot hold U+0000, which SQLite stores. Where it would
 * reach a text column the store answers with a VigilError and stores
 * nothing; inside a JSON payload it is escaped and round-trips.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('nul');
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function open(): Promise<Store> {
  const store = await openStore(db.url, { schema: db.freshSchema() });
  opened.push(store);
  return store;
}

describe('the NUL character on PostgreSQL', () => {
  it('in a source key: invalid_event, nothing stored, for ingest and ingestMany alike', async () => {
    const inbox = (await open()).inbox('alice');
    await expect(inbox.ingest({ source: 's', sourceId: 'a\u0000b' })).rejects.toMatchObject({ code: 'invalid_event' });
    await expect(inbox.ingestMany([{ source: 's', sourceId: 'ok' }, { source: '\u0000', sourceId: 'x' }])).rejects.toMatchObject({
      code: 'invalid_event',
    });
    expect(await inbox.events()).toEqual([]);
  });

  it('in a reply: finish is refused with invalid_argument and changes nothing', async () => {
    const inbox = (await open()).inbox('alice');
    await inbox.ingest({ source: 's', sourceId: '1' });
    const gen = (await inbox.acquire('W'))!;
    const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
    await expect(inbox.finish('W', gen, ids, { messages: ['bad \u0000 reply'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect((await inbox.stats()).events).toEqual({ pending: 0, running: 1, done: 0, dead: 0 });
    expect(await inbox.finish('W', gen, ids, { messages: ['good reply'] })).toBe(true);
  });

  it('inside a payload: stored and read back unchanged', async () => {
    const inbox = (await open()).inbox('alice');
    expect(await inbox.ingest({ source: 's', sourceId: '1', payload: { text: 'a\u0000b' } })).toBe(true);
    expect((await inbox.getEvent('s', '1'))?.payload).toEqual({ text: 'a\u0000b' });
  });
});
