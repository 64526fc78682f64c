/** Every rule's conformance tests, for one backend. */
import type { StoreTarget } from './harness.js';
import { r1Dedupe } from './r1-dedupe.js';
import { r2Lease } from './r2-lease.js';
import { r3Fencing } from './r3-fencing.js';
import { r4Claim } from './r4-claim.js';
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
import { endedSessions } from './ended-sessions.js';

export function runStoreConformance(target: StoreTarget): void {
  r1Dedupe(target);
  r2Lease(target);
  r3Fencing(target);
  r4Claim(target);
  r5Errors(target);
  r6DeadLetters(target);
  r7Timers(target);
  r8Approvals(target);
  r9Outbox(target);
  r10Atomicity(target);
  r11InboxIds(target);
  r12Concurrency(target);
  r13Clocks(target);
  readyInboxes(target);
  statsAndLifecycle(target);
  agentState(target);
  dashboardReads(target);
  endedSessions(target);
}
