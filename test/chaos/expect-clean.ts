/** The assertions both chaos tests make on a report: every invariant held, and the chaos was real. */
import { expect } from 'vitest';
import type { ChaosReport } from '../../chaos/harness.js';
import { formatReport } from '../../chaos/table.js';

export function expectCleanChaos(report: ChaosReport): void {
  // The table is the evidence (RELIABILITY.md quotes it); on failure it says which events, and where the journals were kept.
  console.log(formatReport(report));
  for (const invariant of report.check.invariants) expect(invariant.violations, invariant.name).toEqual([]);
  expect(report.passed).toBe(true);

  // Not vacuous: workers really died, at random moments and at named points, and poison ran out its attempts.
  // Fewer kills than planned on a loaded machine (a kill waits for a worker that finished starting,
  // and npm test runs many files at once), so only a floor: the table shows what landed.
  expect(report.kills.total).toBeGreaterThanOrEqual(2);
  expect(report.kills.poison).toBeGreaterThan(0);
  expect(report.fleet.started).toBeGreaterThan(report.config.workers);
  expect(report.feeder.refused).toBeGreaterThan(0);
  expect(report.check.leases.leases).toBeGreaterThan(report.config.inboxes);
  expect(report.check.done).toBeGreaterThan(report.config.events * 0.9);
}
