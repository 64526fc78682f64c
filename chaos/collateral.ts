/**
 * Why a healthy event may still end dead: attempts are counted at claim
 * (R4), and a worker process runs several inboxes at once, so a poison
 * event that kills its process, a SIGKILL, or a stall that loses every
 * lease the process holds also uses up an attempt of every event that
 * process had in hand. An event whose every attempt was lost that way dies
 * without ever having had a fair run. That is the rule working, not a bug;
 * the harness counts such events and lets them pass, and only them:
 *
 * each claim of the event must have been lost, from the journal:
 *   - its worker died during the run and never finished that batch, or
 *   - its finish was refused (the lease was lost: a stalled process), or
 *   - its batch finished with another event's error (a first attempt
 *     batched with a throwing or flaky event), or
 *   - (an attempt with no claim record) its inbox has a claim its worker
 *     began and died before recording: a claim, or an acquire-and-claim
 *     call that never answered.
 * Anything else (a finish that succeeded, a worker that lived on and never
 * finished) leaves the death unexplained, and the invariant broken.
 */
import type { EventRow } from '../src/store/contract.js';
import type { JournalRecord } from './journal.js';

type Claim = Extract<JournalRecord, { k: 'claim' }>;
type Finish = Extract<JournalRecord, { k: 'finish' }>;

export interface DeadHealthy extends EventRow {
  inbox: string;
}

export function explainDeaths(
  dead: readonly DeadHealthy[],
  journal: readonly JournalRecord[],
  diedDuringRun: ReadonlySet<string>,
): { collateral: string[]; unexplained: string[] } {
  const claims = new Map<string, Claim[]>();
  const finishes = new Map<string, Finish[]>();
  // Claims whose record never came, by a worker that died: `claiming` with no `claim` after it,
  // or `acquiring` with no `acquired` (an acquire-and-claim call; its generation unknown).
  const unanswered = new Map<string, number>();
  const count = (key: string, by: number): void => void unanswered.set(key, (unanswered.get(key) ?? 0) + by);
  for (const r of journal) {
    if (r.k === 'claiming') count(`${r.inbox}#${r.holder}#${r.gen}`, 1);
    if (r.k === 'claim') count(`${r.inbox}#${r.holder}#${r.gen}`, -1);
    if (r.k === 'acquiring') count(`${r.inbox}#${r.holder}#acquiring`, 1);
    if (r.k === 'acquired') count(`${r.inbox}#${r.holder}#acquiring`, -1);
  }
  const lostClaims = new Map<string, number>();
  for (const [key, n] of unanswered) {
    const [inbox, holder] = key.split('#') as [string, string];
    if (n > 0 && diedDuringRun.has(holder)) lostClaims.set(inbox, (lostClaims.get(inbox) ?? 0) + n);
  }
  for (const r of journal) {
    if (r.k === 'claim') for (const id of r.ids) push(claims, `${r.inbox}#${id}`, r);
    if (r.k === 'finish') for (const id of r.ids) push(finishes, `${r.inbox}#${id}#${r.holder}#${r.gen}`, r);
  }
  const collateral: string[] = [];
  const unexplained: string[] = [];
  for (const row of dead) {
    const name = `${row.inbox}/${row.source}/${row.sourceId}`;
    const mine = claims.get(`${row.inbox}#${row.id}`) ?? [];
    const reasons = mine.map((claim) => {
      const done = finishes.get(`${row.inbox}#${row.id}#${claim.holder}#${claim.gen}`) ?? [];
      if (done.some((f) => f.ok && f.error === undefined)) return null;
      if (done.some((f) => f.ok && f.error !== undefined && !mentions(f.error, row.sourceId))) return 'another event failed the batch';
      if (done.some((f) => !f.ok)) return 'lease lost';
      if (done.length === 0 && diedDuringRun.has(claim.holder)) return `${claim.holder} died`;
      return null;
    });
    // A claim whose record was lost to the kill that ended it still counted an attempt: such
    // claims (the worker said it was claiming, then died) may account for the attempts not seen.
    const unseen = Math.max(0, row.attempts - mine.length);
    if (unseen > 0) reasons.push(...Array<string>(Math.min(unseen, lostClaims.get(row.inbox) ?? 0)).fill('claimed, then died'));
    if (reasons.length >= row.attempts && reasons.every((r) => r !== null)) collateral.push(`${name}: ${reasons.join(', ')}`);
    else unexplained.push(`${name}: dead after ${row.attempts} attempts (${row.lastError ?? row.error ?? 'no error'}); claims: ${reasons.map((r) => r ?? 'not lost').join(', ')}`);
  }
  return { collateral, unexplained };
}

function mentions(error: string, sourceId: string): boolean {
  return new RegExp(`\\b${sourceId}\\b`).test(error);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
