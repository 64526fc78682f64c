/** Every rule's conformance tests, for one backend. */
import type { StoreTarget } from './harness.js';
import { r1Dedupe } from './r1-dedupe.js';
import { r2Lease } from './r2-lease.js';
import { r3Fencing } from './r3-fencing.js';
import { r4Claim } from './r4-claim.js';
import { runSteps } from './run-steps.js';
import { r5Errors } from './r5-errors.js';
import { r6DeadLetters } from './r6-dead-letters.js';
import { r7Timers } from './r7-timers.js';
import { r8Approvals } from './r8-approvals.js';
import { r9Outbox } from './r9-outbox.js';
import { r10Atomicity } from './r10-atomicity.js';
import { r11InboxIds } from './r11-inbox-ids.js';
import { r12Concurrency } from './r12-concurrency.js';
import { r13Clocks } from './r13-clocks.js';
import { readyInboxes } from './ready-inboxes.js';
import { agentState } from './agent-state.js';
import { statsAndLifecycle } from './stats.js';
import { dashboardReads } from './dashboard-reads.js';
import { idsAndKeys } from './ids-and-keys.js';
import { eventsAndHints } from './events-and-hints.js';
import { inboxSettings } from './settings.js';
import { r9Pacing } from './r9-pacing.js';
import { debounce } from './debounce.js';
import { outboxFailures } from './outbox-failures.js';
import { endedSessions } from './ended-sessions.js';
import { retention } from './retention.js';
import { inboxData } from './inbox-data.js';
import { bounds } from './bounds.js';
import { writeProbe } from './write-probe.js';
import { quotas } from './quotas.js';
import { approvalReminders } from './approval-reminders.js';
import { effects } from './effects.js';
import { budget } from './budget.js';
import { modelUsage } from './usage.js';

/** Every rule's tests, by name (what VIGIL_CONFORMANCE_RULES names). */
export const CONFORMANCE_RULES: Record<string, (target: StoreTarget) => void> = {
  r1Dedupe,
  r2Lease,
  r3Fencing,
  r4Claim,
  runSteps,
  r5Errors,
  r6DeadLetters,
  r7Timers,
  r8Approvals,
  r9Outbox,
  r9Pacing,
  outboxFailures,
  r10Atomicity,
  r11InboxIds,
  idsAndKeys,
  r12Concurrency,
  r13Clocks,
  readyInboxes,
  statsAndLifecycle,
  agentState,
  dashboardReads,
  eventsAndHints,
  inboxSettings,
  debounce,
  endedSessions,
  retention,
  inboxData,
  bounds,
  writeProbe,
  quotas,
  approvalReminders,
  effects,
  budget,
  modelUsage,
};

/**
 * Registers every rule's tests for `target`, or only those named in
 * VIGIL_CONFORMANCE_RULES (comma-separated): `npm run mutation` narrows a
 * target's runs to the rules that exercise its files that way. A name that
 * is no rule fails the file rather than run nothing.
 */
export function runStoreConformance(target: StoreTarget, only = process.env.VIGIL_CONFORMANCE_RULES): void {
  const names = only === undefined || only === '' ? Object.keys(CONFORMANCE_RULES) : only.split(',');
  const unknown = names.filter((name) => !Object.hasOwn(CONFORMANCE_RULES, name));
  if (unknown.length > 0) throw new Error(`VIGIL_CONFORMANCE_RULES names no rule: ${unknown.join(', ')}; known: ${Object.keys(CONFORMANCE_RULES).join(', ')}`);
  for (const name of names) CONFORMANCE_RULES[name]!(target);
}
