/**
 * The idempotency key of a side effect: the same on every retry of the run
 * that makes it, so the API behind it (Stripe's, say) performs it once.
 * Used by the run's context (ctx.idempotencyKey) and by the toolbox for
 * each tool call.
 */
import { createHash } from 'node:crypto';
import type { ClaimedEvent } from '../store/contract.js';

/** Stable across retries: derived from the inbox, the events' source keys (not their ids) and the name. */
export function idempotencyKeyFor(inboxId: string, events: readonly Pick<ClaimedEvent, 'id' | 'source' | 'sourceId'>[], name: string): string {
  const hash = createHash('sha256');
  hash.update(inboxId);
  for (const event of [...events].sort((a, b) => a.id - b.id)) hash.update(`\u0000${event.source}\u0000${event.sourceId}`);
  hash.update(`\u0000${name}`);
  return hash.digest('base64url').slice(0, 32);
}
