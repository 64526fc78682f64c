/**
 * What the inbox page says after an action. The redirect carries a code
 * from this fixed set and, for some, one id (an event id, a lease
 * generation, an approval id); never text. Each id is checked before it is
 * shown: a number must be a positive whole number, an approval id must be
 * one of this inbox's approvals. So a crafted link can make the page say
 * only what the dashboard itself says after an action, about things that
 * exist, and never put words of its own into an "ok" notice.
 */
export type NoticeCode =
  | 'redriven'
  | 'not-redriven'
  | 'approved'
  | 'refused'
  | 'approval-expired'
  | 'already-yes'
  | 'already-no'
  | 'released'
  | 'not-released'
  | 'sending'
  | 'nothing-held';

type Notice = { kind: 'ok' | 'warn' | 'error'; text: string };

/** What a notice's ref must be: an event id or a lease generation (numbers), an approval of this inbox, or nothing. */
type RefKind = 'event' | 'gen' | 'approval' | 'none';

const NOTICES: Record<NoticeCode, { ref: RefKind; say: (ref: string | null) => Notice }> = {
  redriven: { ref: 'event', say: (ref) => ({ kind: 'ok', text: `Redriven: ${ref === null ? 'the event' : `event ${ref}`} is pending again; the agent will run it.` }) },
  'not-redriven': { ref: 'event', say: (ref) => ({ kind: 'warn', text: `Nothing changed: ${ref === null ? 'the event' : `event ${ref}`} is not dead (someone may have redriven it already).` }) },
  approved: { ref: 'approval', say: (ref) => ({ kind: 'ok', text: `Approved${ref === null ? '' : ` ${ref}`}: the agent goes on with it.` }) },
  refused: { ref: 'approval', say: (ref) => ({ kind: 'ok', text: `Refused${ref === null ? '' : ` ${ref}`}: the agent is told no.` }) },
  'approval-expired': {
    ref: 'approval',
    say: (ref) => ({ kind: 'error', text: `Expired: ${ref === null ? 'the approval' : `approval ${ref}`} ran out of time before this answer, so nothing was approved.` }),
  },
  'already-yes': { ref: 'approval', say: (ref) => ({ kind: 'warn', text: `Already answered: ${ref ?? 'the approval'} stands as yes.` }) },
  'already-no': { ref: 'approval', say: (ref) => ({ kind: 'warn', text: `Already answered: ${ref ?? 'the approval'} stands as no.` }) },
  released: { ref: 'gen', say: (ref) => ({ kind: 'ok', text: `Released the lease${ref === null ? '' : ` (generation ${ref})`}; the next worker takes over at once.` }) },
  'not-released': { ref: 'gen', say: (ref) => ({ kind: 'warn', text: `Not released: ${ref === null ? 'that holder' : `generation ${ref}`} no longer holds the lease.` }) },
  sending: { ref: 'none', say: () => ({ kind: 'ok', text: 'The held messages go out now.' }) },
  'nothing-held': { ref: 'none', say: () => ({ kind: 'warn', text: 'Nothing was held: the outbox had already sent everything.' }) },
};

/**
 * The notice for `code` with `ref` where it checks out, else without it;
 * null for a code not in the set. `approvals` are the ids of this inbox's
 * approvals (those the page lists).
 */
export function noticeFor(code: string | undefined, ref: string | undefined, approvals: ReadonlySet<string>): Notice | null {
  if (code === undefined || !Object.hasOwn(NOTICES, code)) return null;
  const notice = NOTICES[code as NoticeCode];
  return notice.say(checkedRef(notice.ref, ref, approvals));
}

function checkedRef(kind: RefKind, ref: string | undefined, approvals: ReadonlySet<string>): string | null {
  if (ref === undefined || kind === 'none') return null;
  if (kind === 'approval') return approvals.has(ref) ? ref : null;
  return /^[1-9]\d{0,15}$/.test(ref) ? ref : null;
}
