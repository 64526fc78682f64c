/**
 * Moving a user between backends (issue: outgrowing the embedded SQLite
 * default): an inbox exported from SQLite and imported into PostgreSQL
 * exports the same records there, and back again; `vigil migrate-store`
 * does it for every inbox of a directory, resumably.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, openStore, type InboxRecord, type Store } from '../../src/index.js';
import { buildRichInbox, collect } from '../conformance/inbox-data.js';
import { T0 } from '../conformance/harness.js';
import { ServiceHarness } from '../fixtures/service-process.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('across_stores');
const dirs: string[] = [];
const stores: Store[] = [];
const harness = new ServiceHarness();
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await harness.cleanup();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-across-'));
  dirs.push(dir);
  return dir;
}

async function track(store: Promise<Store>): Promise<Store> {
  const opened = await store;
  stores.push(opened);
  return opened;
}

describe('SQLite → PostgreSQL → SQLite', () => {
  it('an inbox exported from one store and imported into the other exports the same records there, and behaves the same', async () => {
    const clock = createFakeClock(T0);
    const options = { clock: clock.now, leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } };
    const sqlite = await track(openStore(`sqlite:${tempDir()}`, options));
    await buildRichInbox(sqlite, clock);
    const records: InboxRecord[] = await collect(sqlite.exportInbox('alice'));

    const postgres = await track(openStore(db.url, { ...options, schema: db.freshSchema() }));
    expect(await postgres.importInbox('alice', sqlite.exportInbox('alice'))).toEqual({ records: records.length });
    expect(await collect(postgres.exportInbox('alice'))).toEqual(records);
    const [before, after] = await Promise.all([sqlite.inbox('alice').stats(), postgres.inbox('alice').stats()]);
    expect({ ...after, lease: null }).toEqual({ ...before, lease: null });
    expect(await postgres.inbox('alice').ingest({ source: 'github', sourceId: 'old' })).toBe(false); // a tombstone crossed over

    const back = await track(openStore(`sqlite:${tempDir()}`, options));
    await back.importInbox('alice', postgres.exportInbox('alice'));
    expect(await collect(back.exportInbox('alice'))).toEqual(records);
  });
});

describe('vigil migrate-store to PostgreSQL', () => {
  it('moves every inbox of a SQLite directory; run again, it skips them all', async () => {
    const dir = tempDir();
    const clock = createFakeClock(T0);
    const sqlite = await track(openStore(`sqlite:${dir}`, { clock: clock.now, leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } }));
    for (const id of ['alice', 'bob']) await buildRichInbox(sqlite, clock, id);
    const expected = await Promise.all(['alice', 'bob'].map((id) => collect(sqlite.exportInbox(id))));
    await sqlite.close();
    stores.length = 0;

    const schema = db.freshSchema();
    const to = `${db.url}${db.url.includes('?') ? '&' : '?'}schema=${schema}`;
    let result = await harness.cli(['migrate-store', '--from', `sqlite:${dir}`, '--to', to]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toContain('moved 2 inboxes');
    expect(result.stdout).not.toContain(db.url.replace(/^.*:\/\/[^:]+:([^@]+)@.*$/, '$1')); // no password printed
    result = await harness.cli(['migrate-store', '--from', `sqlite:${dir}`, '--to', to]);
    expect(result.stdout).toContain('moved 0 inboxes (0 records); 2 already there, skipped');

    const postgres = await track(openStore(db.url, { schema }));
    expect(await postgres.inboxes()).toEqual(['alice', 'bob']);
    expect(await Promise.all(['alice', 'bob'].map((id) => collect(postgres.exportInbox(id))))).toEqual(expected);
  });
});
