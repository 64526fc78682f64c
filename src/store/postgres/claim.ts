/**
 * R4 (fenced by R3): what one run claims, in one transaction. The rule is
 * vigil_claim in migrations/004-operations.sql: abandoned rows back to
 * pending, exhausted ones dead, then the oldest due retry alone or the
 * never-tried events up to batchLimit; attempts counted at claim.
 */
import type { ClaimedEvent } from '../contract.js';
import { workParams, type CallTarget, type Statement } from './call.js';

const CLAIM: Statement = {
  name: 'vigil_claim',
  text: 'SELECT id, source, source_id, payload, attempts FROM vigil_claim($1, $2, $3, $4, $5, $6, $7, $8, $9)',
};

interface ClaimedRow {
  id: number;
  source: string;
  source_id: string;
  payload: string;
  attempts: number;
}

export async function claimBatch(db: CallTarget, inboxId: string, holder: string, gen: number): Promise<ClaimedEvent[]> {
  const { options } = db;
  const [maxAttempts, baseMs, maxMs, gapMs] = workParams(options);
  const rows = await db.call<ClaimedRow>(CLAIM, [inboxId, holder, gen, db.appNow(), maxAttempts, options.batchLimit, baseMs, maxMs, gapMs]);
  return rows
    .map((row) => ({
      id: row.id,
      source: row.source,
      sourceId: row.source_id,
      payload: JSON.parse(row.payload) as unknown,
      attempts: row.attempts,
    }))
    .sort((a, b) => a.id - b.id); // RETURNING order is unspecified
}
