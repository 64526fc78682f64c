/**
 * A run's steps in one call each (contract.ts: acquireAndClaim,
 * finishAndClaim): vigil_acquire_and_claim and vigil_finish_and_claim
 * (functions/run-step.sql), the lease, finish and claim rules on one locked
 * inbox row, with the release when the run has nothing left.
 *
 * Round trips per run of one batch: acquire, claim, finish (2), release was
 * 5; acquireAndClaim then finishAndClaim is 3. Each further batch: finish
 * (2) and claim was 3, finishAndClaim is 2.
 */
import type { Acquired, CheckedFinish, Claim } from '../engine/port.js';
import { toClaimedEvents, toDeadEvents, type ClaimedRecord, type DeadRecord } from '../rows.js';
import { workParams, type CallTarget, type Statement } from './call.js';
import { effectParams, finishParams } from './finish.js';

const ACQUIRE_AND_CLAIM: Statement = {
  name: 'vigil_acquire_and_claim',
  text: `SELECT kind, id, source, source_id, payload, attempts, last_error, gen, renewed, takeover
         FROM vigil_acquire_and_claim($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
};

const FINISH_AND_CLAIM: Statement = {
  name: 'vigil_finish_and_claim',
  text: `SELECT kind, id, source, source_id, payload, attempts, last_error
         FROM vigil_finish_and_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)`,
};

type StepRow = ClaimedRecord & DeadRecord & { kind: 'lease' | 'finished' | 'claimed' | 'dead' };
type LeaseRow = StepRow & { gen: number; renewed: boolean; takeover: boolean };

/** One call, one commit that waits for the flush (an acquire's must); null while another holder's lease is valid. */
export async function acquireAndClaim(db: CallTarget, inboxId: string, holder: string): Promise<{ acquired: Acquired; claim: Claim } | null> {
  const { options } = db;
  const [maxAttempts, baseMs, maxMs, gapMs] = workParams(options);
  const params = [inboxId, holder, db.appNow(), options.leaseTtlMs, maxAttempts, options.batchLimit, baseMs, maxMs, gapMs];
  const rows = await db.runStep<LeaseRow>(inboxId, ACQUIRE_AND_CLAIM, params, { wake: false, alone: () => db.call(ACQUIRE_AND_CLAIM, params) });
  const lease = rows.find((row) => row.kind === 'lease');
  if (lease === undefined) return null;
  return { acquired: { gen: lease.gen, renewed: lease.renewed, takeover: lease.takeover }, claim: toClaim(rows) };
}

/**
 * Two round trips, as finish (finish.ts says why): BEGIN with the call,
 * then COMMIT once its answer is back, with the outbox hint after it.
 */
export async function finishAndClaim(db: CallTarget, inboxId: string, finish: CheckedFinish): Promise<{ finished: boolean; claim: Claim }> {
  const { options } = db;
  const { wake } = finish;
  const params = [...finishParams(db, inboxId, finish), options.leaseTtlMs, options.batchLimit, ...workParams(options), ...effectParams(finish)];
  const alone = (): Promise<StepRow[]> => db.callThenCommit<StepRow>(FINISH_AND_CLAIM, params, { wake });
  const rows = await db.runStep<StepRow>(inboxId, FINISH_AND_CLAIM, params, { wake, alone });
  const finished = rows.some((row) => row.kind === 'finished');
  return { finished, claim: finished ? toClaim(rows) : { events: [], dead: [] } };
}

function toClaim(rows: StepRow[]): Claim {
  return {
    events: toClaimedEvents(rows.filter((row) => row.kind === 'claimed')),
    dead: toDeadEvents(rows.filter((row) => row.kind === 'dead')),
  };
}
