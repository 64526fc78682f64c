/**
 * A user's data from the command line (cli/commands/data-commands.ts), each
 * command a real process on a real SQLite directory: export as JSON Lines,
 * delete (only with --yes), import, prune by the config's retention, and
 * migrate-store, resumable.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

/** An inbox with events done and pending, a message and a memory entry, built through the API. */
async function seed(store: Store, inboxId: string, events = 3): Promise<void> {
  const inbox = store.inbox(inboxId);
  await inbox.ingestMany(Array.from({ length: events }, (_, n) => ({ source: 'github', sourceId: `d${n}`, payload: { n } })));
  const gen = (await inbox.acquire('W'))!;
  const claimed = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, claimed.map((e) => e.id), { messages: ['done'], memory: { set: { seen: events } } })).toBe(true);
  await inbox.release('W', gen);
  await inbox.ingest({ source: 'github', sourceId: 'pending', payload: {} });
}

async function withSqlite<T>(dir: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(`sqlite:${dir}`);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

describe('export, delete, import', () => {
  it('export writes JSON Lines; delete needs --yes; import recreates the inbox and a second export is the same', async () => {
    const dir = harness.tempDir('vigil-data-');
    const store = ['--store', `sqlite:${dir}`];
    await withSqlite(dir, (s) => seed(s, 'alice'));
    const file = join(dir, '..', `alice-${Date.now()}.jsonl`);

    let result = await harness.cli(['export', 'alice', '--out', file, ...store]);
    expect([result.code, result.stdout]).toEqual([0, expect.stringMatching(/^wrote \d+ records of alice to /)]);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toContain('event');

    result = await harness.cli(['delete', 'alice', ...store]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('add --yes')]);
    result = await harness.cli(['delete', 'alice', '--yes', ...store]);
    expect([result.code, result.stdout.trim()]).toEqual([0, 'deleted alice']);
    result = await harness.cli(['delete', 'alice', '--yes', ...store]);
    expect(result.code).toBe(1);
    await withSqlite(dir, async (s) => expect(await s.inboxes()).toEqual([]));

    result = await harness.cli(['import', 'alice', '--from', file, ...store]);
    expect([result.code, result.stdout.trim()]).toEqual([0, `imported ${lines.length} records into alice`]);
    result = await harness.cli(['export', 'alice', ...store]);
    expect(result.stdout.trimEnd().split('\n')).toEqual(lines);
    // Importing again is refused: the inbox holds the data now.
    result = await harness.cli(['import', 'alice', '--from', file, ...store]);
    expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('already holds data')]);
  });

  it('import names a line that is not JSON and a record that is not valid, exits 2, and stores nothing', async () => {
    const dir = harness.tempDir('vigil-data-');
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"type":"tombstone","source":"s","sourceId":"1"}\n{nope\n');
    let result = await harness.cli(['import', 'alice', '--from', file, '--store', `sqlite:${dir}/store`]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('bad.jsonl:2: not a JSON record')]);
    writeFileSync(file, '{"type":"tombstone","source":"s","sourceId":"1"}\n{"type":"event","source":"s"}\n');
    result = await harness.cli(['import', 'alice', '--from', file, '--store', `sqlite:${dir}/store`]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('record 2 (event): sourceId must be')]);
    await withSqlite(join(dir, 'store'), async (s) => expect(await s.inboxes()).toEqual([]));
  });
});

describe('prune', () => {
  it("removes what the config's retention puts past its time, keeping the keys; without a retention it exits 2", async () => {
    const dir = harness.tempDir('vigil-data-');
    const store = ['--store', `sqlite:${dir}/store`];
    await withSqlite(join(dir, 'store'), (s) => seed(s, 'alice', 5));
    let result = await harness.cli(['prune', ...store]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('no retention is configured')]);
    const config = harness.writeConfig(dir, { engine: { retention: { doneEventsMs: 0, sentMessagesMs: 0 } } });
    result = await harness.cli(['prune', '--config', config, ...store, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ events: 5, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0 }); // the message is still held
    await withSqlite(join(dir, 'store'), async (s) => {
      const alice = s.inbox('alice');
      expect((await alice.stats()).events).toEqual({ pending: 1, running: 0, done: 0, dead: 0 });
      expect(await alice.ingest({ source: 'github', sourceId: 'd0' })).toBe(false);
      expect(await alice.getMemory()).toEqual({ seen: 5 });
    });
  });
});

describe('migrate-store', () => {
  it('copies every inbox; a second run skips what is there, so a stopped run resumes', async () => {
    const dir = harness.tempDir('vigil-data-');
    await withSqlite(join(dir, 'from'), async (s) => {
      for (const id of ['alice', 'bob', 'carol']) await seed(s, id);
    });
    const flags = ['--from', `sqlite:${join(dir, 'from')}`, '--to', `sqlite:${join(dir, 'to')}`];
    let result = await harness.cli(['migrate-store', ...flags, '--limit', '1']);
    expect([result.code, result.stdout]).toEqual([0, expect.stringContaining('moved 1 inboxes')]);
    result = await harness.cli(['migrate-store', ...flags]);
    expect([result.code, result.stdout]).toEqual([0, expect.stringContaining('moved 2 inboxes (')]);
    expect(result.stdout).toContain('1 already there, skipped');
    const exported = async (store: string): Promise<unknown[]> =>
      withSqlite(store, async (s) => {
        const all: unknown[] = [];
        for (const id of await s.inboxes()) for await (const record of s.exportInbox(id)) all.push([id, record]);
        return all;
      });
    expect(await exported(join(dir, 'to'))).toEqual(await exported(join(dir, 'from')));
    result = await harness.cli(['migrate-store', '--from', `sqlite:${dir}/x`, '--to', `sqlite:${dir}/x`]);
    expect(result.code).toBe(2);
  });
});
