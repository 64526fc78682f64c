/**
 * A pool of OS processes racing on the same inboxes (R12 across processes,
 * R1-R3 and R9 under real concurrency): see race.ts for what is checked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRace, findOverlaps, killWorkers, runRace } from './race.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('race');
afterEach(killWorkers);

describe('several worker processes racing on the same inboxes', () => {
  it('one holder per inbox at a time, every key stored once, every event done once, every reply queued and sent once', async () => {
    const report = await runRace(db, {
      skews: [0, 0, 0, 0],
      inboxes: 3,
      iterations: 60,
      leaseTtlMs: 30_000,
      stallEvery: 0,
      keysPerInbox: 40,
    });
    expectCleanRace(report);
    // The race was real: every inbox changed hands between processes many times.
    const workerGrants = report.grants.filter((g) => g.holder !== 'drain' && g.done.length > 0);
    expect(workerGrants.length).toBeGreaterThan(30);
    for (const inbox of ['inbox-0', 'inbox-1', 'inbox-2']) {
      expect(new Set(workerGrants.filter((g) => g.inbox === inbox).map((g) => g.holder)).size).toBeGreaterThan(1);
    }
  });

  it('the overlap check is not vacuous: it reports two leases held at once', () => {
    const grant = { kind: 'grant' as const, inbox: 'x', askedAt: 0, stalled: false, finished: true, released: true, done: [] };
    expect(
      findOverlaps([
        { ...grant, holder: 'A', gen: 1, heldFrom: 10, heldUntil: 20 },
        { ...grant, holder: 'B', gen: 2, heldFrom: 19, heldUntil: 30 },
        { ...grant, holder: 'A', gen: 3, heldFrom: 30, heldUntil: 40 },
      ]),
    ).toEqual(['x: A gen 1 [10.000, 20.000] and B gen 2 [19.000, 30.000]']);
    // A hung run's lease lasts its TTL unless the same holder renews it and releases it sooner.
    const hung = { ...grant, holder: 'A', gen: 1, heldFrom: 10, heldUntil: 40, stalled: true };
    const taker = { ...grant, holder: 'B', gen: 2, heldFrom: 30, heldUntil: 50 };
    expect(findOverlaps([hung, taker])).toHaveLength(1);
    expect(findOverlaps([hung, { ...grant, holder: 'A', gen: 1, heldFrom: 20, heldUntil: 25 }, taker])).toEqual([]);
  });
});
