/**
 * The inboxes whose writes fail while the store takes the others' (a
 * corrupt file, a bad row): what `/healthz`, which anyone may ask, leaves
 * out, said to the signed-in operator at the top of the overview.
 */
import type { InboxFailure } from '../http/write-health.js';

/** The few named in full; the rest counted. */
const NAMED = 5;

export function writeFailures(failing: InboxFailure[]): { kind: 'error'; text: string } | null {
  if (failing.length === 0) return null;
  const named = failing.slice(0, NAMED).map((f) => `${f.inboxId} (since ${new Date(f.since).toISOString()}: ${f.error})`);
  const more = failing.length > NAMED ? `; and ${failing.length - NAMED} more` : '';
  const count = failing.length === 1 ? 'one inbox fail' : `${failing.length} inboxes fail`;
  return { kind: 'error', text: `Writes to ${count}; the store takes the others': ${named.join('; ')}${more}.` };
}
