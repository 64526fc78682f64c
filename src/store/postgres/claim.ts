/**
 * R4 (fenced by R3): what one run claims, in one transaction. The rule is
 * vigil_claim in functions/claim.sql: abandoned rows back to
 * pending, exhausted ones dead, then the oldest due retry alone or the
 * never-tried events up to batchLimit; attempts counted at claim.
 */
import type { ClaimedEvent } from '../contract.js';
import { toClaimedEvents, type ClaimedRecord } from '../rows.js';
import { workParams, type CallTarget, type Statement } from './call.js';

const CLAIM: Statement = {
  name: 'vigil_claim',
  text: 'SELECT id, source, source_id, payload, attempts FROM vigil_claim($1, $2, $3, $4, $5, $6, $7, $8, $9)',
};

export async function claimBatch(db: CallTarget, inboxId: string, holder: string, gen: number): Promise<ClaimedEvent[]> {
  const { options } = db;
  const [maxAttempts, baseMs, maxMs, gapMs] = workParams(options);
  const rows = await db.call<ClaimedRecord>(CLAIM, [inboxId, holder, gen, db.appNow(), maxAttempts, options.batchLimit, baseMs, maxMs, gapMs]);
  return toClaimedEvents(rows);
}
