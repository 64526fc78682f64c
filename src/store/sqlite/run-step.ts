/**
 * A run's steps in one transaction each (contract.ts: acquireAndClaim,
 * finishAndClaim): the lease (R2), the claim (R4) and the finish (R3, R5)
 * as their own modules write them, composed, then the release when the run
 * has nothing left (engine/lease.ts, endsRun).
 */
import { endsRun } from '../engine/lease.js';
import type { SpendJudgement } from '../engine/budget.js';
import type { Acquired, CheckedFinish, Claim } from '../engine/port.js';
import { claimBatch } from './claim.js';
import { finishRun } from './finish.js';
import { judgeSpend } from './spend.js';
import type { InboxDb } from './inbox-db.js';
import { acquireLease, anyRunning, releaseLease } from './lease.js';

const NOTHING: Claim = { events: [], dead: [] };

export function acquireAndClaim(c: InboxDb, holder: string, now: number): { acquired: Acquired; claim: Claim } | null {
  const acquired = acquireLease(c, holder, now);
  if (acquired === null) return null;
  return { acquired, claim: claimOrRelease(c, holder, acquired.gen, now) };
}

export function finishAndClaim(c: InboxDb, finish: CheckedFinish, now: number): { finished: boolean; claim: Claim; judged?: SpendJudgement } {
  if (!finishRun(c, finish, now)) return { finished: false, claim: NOTHING };
  // The spend this finish recorded is judged before the claim: the run that spends the budget is the last.
  const judged = finish.judge === undefined ? undefined : judgeSpend(c, finish.judge, now, true);
  acquireLease(c, finish.holder, now); // the holder's own valid lease (finishRun checked it): renewed, same generation
  return { finished: true, claim: claimOrRelease(c, finish.holder, finish.gen, now), ...(judged === undefined ? {} : { judged }) };
}

function claimOrRelease(c: InboxDb, holder: string, gen: number, now: number): Claim {
  const claim = claimBatch(c, holder, gen, now);
  if (endsRun(claim.events.length, anyRunning(c))) releaseLease(c, holder, gen, now);
  return claim;
}
