/** throwawayStore: a SQLite store in a temporary directory with a fake clock, gone after close. */
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createFakeClock, THROWAWAY_START, throwawayStore } from '../../src/testing/index.js';

it('opens a SQLite store in a fresh directory with a fake clock, and removes the directory on close', async () => {
  const kit = await throwawayStore({ leaseTtlMs: 10_000 });
  expect(kit.dir).toBeDefined();
  expect(kit.schema).toBeUndefined();
  expect(kit.clock.now()).toBe(THROWAWAY_START);
  const inbox = kit.store.inbox('a');
  expect(await inbox.ingest({ source: 's', sourceId: '1' })).toBe(true);
  expect(await inbox.acquire('w')).toBe(1);
  expect((await inbox.stats()).lease?.until).toBe(THROWAWAY_START + 10_000); // the store reads the fake clock
  expect(existsSync(kit.dir!)).toBe(true);

  // A second store object on the same directory, as another process would open.
  const other = await kit.open();
  expect(await other.inbox('a').acquire('v')).toBeNull();
  kit.clock.advance(10_001);
  expect(await other.inbox('a').acquire('v')).toBe(2);

  await kit.close();
  expect(existsSync(kit.dir!)).toBe(false);
  await kit.close(); // twice is fine
  await expect(kit.store.inboxes()).rejects.toThrow(/closed/);
});

it('takes the clock it is given, and two throwaway stores never share a directory', async () => {
  const clock = createFakeClock(42_000);
  await using a = await throwawayStore({ clock });
  await using b = await throwawayStore();
  expect(a.clock).toBe(clock);
  expect(a.dir).not.toBe(b.dir);
  await a.store.inbox('x').acquire('w');
  expect((await a.store.inbox('x').stats()).lease?.until).toBe(42_000 + 120_000);
});

it('refuses a URL that is not PostgreSQL', async () => {
  await expect(throwawayStore({ url: 'sqlite:./data' })).rejects.toThrow(/postgres/);
});
