/**
 * ingestMany on SQLite goes in as multi-row INSERTs of up to 32 rows
 * (sqlite/ingest.ts) and learns which rows were stored from each chunk's
 * count of changes, reading back the keys only of a chunk that stored some
 * of its rows. Batches here cross those chunk boundaries, with duplicates of
 * stored events, of pruned ones (tombstones) and inside the batch, and every
 * answer is checked against what a one-at-a-time ingest would say.
 */
import { describe, expect, it } from 'vitest';
import type { Inbox, NewEvent } from '../../src/index.js';
import { useTempStores } from './temp-dirs.js';

const DAY = 86_400_000;

/** What R1 says of each event of the batch, given the keys already refused: stored for a key's first event, in order. */
function expected(batch: NewEvent[], refused: Set<string>): boolean[] {
  const seen = new Set(refused);
  return batch.map((event) => {
    if (seen.has(event.sourceId)) return false;
    seen.add(event.sourceId);
    return true;
  });
}

/** 300 events (nine chunks of 32, then 8 and 4): new keys, keys in `old`, and keys repeated in the batch, spread over every chunk. */
function mixedBatch(old: string[]): NewEvent[] {
  const batch: NewEvent[] = [];
  for (let i = 0; i < 300; i++) {
    const sourceId = i % 7 === 3 ? old[i % old.length]! : i % 11 === 5 ? `new-${i - 5}` : `new-${i}`;
    batch.push({ source: 's', sourceId, payload: { i } });
  }
  return batch;
}

async function payloadsOf(inbox: Inbox, batch: NewEvent[], stored: boolean[]): Promise<void> {
  for (const [i, event] of batch.entries()) {
    if (!stored[i]) continue;
    // The first event of a key is the one stored, with its payload.
    expect((await inbox.getEvent('s', event.sourceId))?.payload).toEqual(event.payload);
  }
}

describe('ingestMany in multi-row chunks (SQLite)', () => {
  const temp = useTempStores();

  it('answers each event of a 300-event batch as R1 does, with duplicates of stored events and inside the batch', async () => {
    const { store } = await temp.open(temp.dir());
    const inbox = store.inbox('alice');
    const old = Array.from({ length: 40 }, (_, i) => `old-${i}`);
    expect(await inbox.ingestMany(old.map((sourceId) => ({ source: 's', sourceId })))).toEqual(old.map(() => true));
    const batch = mixedBatch(old);
    const want = expected(batch, new Set(old));
    expect(want.filter((stored) => !stored).length).toBeGreaterThan(40);
    const stored = await inbox.ingestMany(batch);
    expect(stored).toEqual(want);
    expect((await inbox.stats()).events.pending).toBe(old.length + want.filter(Boolean).length);
    await payloadsOf(inbox, batch, stored);
    // The same batch again: nothing is new.
    expect(await inbox.ingestMany(batch)).toEqual(batch.map(() => false));
  });

  it('does the same in an inbox with tombstones, whose pruned keys stay refused', async () => {
    const { store, clock } = await temp.open(temp.dir(), { retention: { doneEventsMs: DAY } });
    const inbox = store.inbox('alice');
    const old = Array.from({ length: 40 }, (_, i) => `old-${i}`);
    await inbox.ingestMany(old.map((sourceId) => ({ source: 's', sourceId })));
    const gen = (await inbox.acquire('W'))!;
    const claimed = await inbox.claimBatch('W', gen);
    expect(await inbox.finish('W', gen, claimed.slice(0, 20).map((event) => event.id))).toBe(true);
    await inbox.release('W', gen);
    clock.advance(DAY);
    expect((await store.prune()).events).toBe(20); // old-0 to old-19 are tombstones now; the rest are running
    const batch = mixedBatch(old);
    const want = expected(batch, new Set(old));
    const stored = await inbox.ingestMany(batch);
    expect(stored).toEqual(want);
    await payloadsOf(inbox, batch, stored);
    expect(await inbox.getEvent('s', 'old-3')).toBeNull();
  });
});
