/**
 * R13 across processes: worker processes whose machine clocks are 5 minutes
 * behind and 5 minutes ahead race on the same inboxes with a short lease, and
 * some of their runs hang mid-run so their leases must expire and be taken
 * over. With the default clock: 'database' the machines' clocks never enter a
 * lease decision: still one holder per inbox at any time (on the machine's
 * monotonic clock), and every rule of the plain race holds.
 *
 * (The in-process control that shows such skew does let two holders in
 * when the machines' own clocks decide is in test/conformance/r13-clocks.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRace, killWorkers, runRace } from './race.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('skew');
afterEach(killWorkers);
const MINUTE = 60_000;

describe('worker processes whose clocks are 5 minutes apart', () => {
  it("never both hold a lease, and take over a hung worker's lease only after it expired by the database's clock", async () => {
    const report = await runRace(db, {
      skews: [-5 * MINUTE, +5 * MINUTE, -5 * MINUTE, +5 * MINUTE],
      inboxes: 2,
      iterations: 50,
      leaseTtlMs: 300,
      stallEvery: 7,
      keysPerInbox: 30,
    });
    expectCleanRace(report);
    const workers = report.grants.filter((g) => g.holder !== 'drain');
    const stalls = workers.filter((g) => g.stalled);
    expect(stalls.length).toBeGreaterThan(0);
    // Hung leases were taken over by another process, in a later generation.
    const takenOver = stalls.filter((stall) =>
      workers.some((g) => g.inbox === stall.inbox && g.gen > stall.gen && g.holder !== stall.holder),
    );
    expect(takenOver.length).toBeGreaterThan(0);
    // Both clock groups held leases: the skewed machines really raced each other.
    const holders = new Set(workers.filter((g) => g.done.length > 0).map((g) => g.holder));
    expect([...holders].some((h) => h === 'W0' || h === 'W2') && [...holders].some((h) => h === 'W1' || h === 'W3')).toBe(true);
  });
});
