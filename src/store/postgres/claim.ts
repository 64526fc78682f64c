/**
 * R4 (fenced by R3): what one run claims, in one transaction. The rule is
 * vigil_claim in functions/claim.sql: abandoned rows back to
 * pending, exhausted ones dead, then the oldest due retry alone or the
 * never-tried events up to batchLimit; attempts counted at claim.
 */
import type { Claim } from '../engine/port.js';
import { toClaimedEvents, toDeadEvents, type ClaimedRecord, type DeadRecord } from '../rows.js';
import { workParams, type CallTarget, type Statement } from './call.js';

const CLAIM: Statement = {
  name: 'vigil_claim',
  text: 'SELECT kind, id, source, source_id, payload, attempts, last_error FROM vigil_claim($1, $2, $3, $4, $5, $6, $7, $8, $9)',
};

type ClaimRow = ClaimedRecord & DeadRecord & { kind: 'claimed' | 'dead' };

export async function claimBatch(db: CallTarget, inboxId: string, holder: string, gen: number): Promise<Claim> {
  const { options } = db;
  const [maxAttempts, baseMs, maxMs, gapMs] = workParams(options);
  const rows = await db.call<ClaimRow>(CLAIM, [inboxId, holder, gen, db.appNow(), maxAttempts, options.batchLimit, baseMs, maxMs, gapMs]);
  return {
    events: toClaimedEvents(rows.filter((row) => row.kind === 'claimed')),
    dead: toDeadEvents(rows.filter((row) => row.kind === 'dead')),
  };
}
