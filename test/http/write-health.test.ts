/**
 * The write health's probe (write-health.ts) on a real SQLite store: a
 * sender hammering an inbox whose file is corrupt costs one probe write a
 * second, not one per request, and each failure is still that inbox's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RuntimeEvents } from '../../src/events.js';
import { PROBE_EVERY_MS, WriteHealth } from '../../src/http/write-health.js';
import { useTempStores } from '../sqlite/temp-dirs.js';

const temp = useTempStores();

it('failures in a burst share one probe a second; the inbox is marked, the instance is not degraded', async () => {
  const dir = temp.dir();
  const { store, clock } = await temp.open(dir);
  writeFileSync(join(dir, 'broken.db'), 'not a SQLite database, only text long enough to be read as a header. '.repeat(20));
  let probes = 0;
  const counted = { probeWrites: () => ((probes += 1), store.probeWrites()) };
  const events = new RuntimeEvents();
  const marked: string[] = [];
  events.on('inbox:writes-failing', (e) => marked.push(e.inboxId));
  const health = new WriteHealth(counted, clock.now, events);

  const fail = async (): Promise<void> => {
    const error = await store.inbox('broken').ingest({ source: 'test', sourceId: `k${Math.random()}` }).catch((caught: unknown) => caught);
    health.failed('broken', error);
  };
  for (let i = 0; i < 50; i++) await fail();
  expect(await health.degraded()).toBeNull();
  expect(probes).toBe(1);
  expect(marked).toEqual(['broken']);
  expect(health.failingInboxes()).toEqual([expect.objectContaining({ inboxId: 'broken', error: expect.stringContaining('SQLITE_NOTADB') })]);

  clock.advance(PROBE_EVERY_MS);
  for (let i = 0; i < 50; i++) await fail();
  expect(probes).toBe(2);
  expect(await health.degraded()).toBeNull();
  health.succeeded('broken');
  expect(health.failingInboxes()).toEqual([]);
});
