/**
 * What the inbox page says after an action. The redirect carries a code and
 * the action's target, never free text, so a crafted link cannot make the
 * dashboard say something it did not.
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

const NOTICES: Record<NoticeCode, (ref: string) => Notice> = {
  redriven: (ref) => ({ kind: 'ok', text: `Redriven: ${ref} is pending again; the agent will run it.` }),
  'not-redriven': (ref) => ({ kind: 'warn', text: `Nothing changed: ${ref} is not dead (someone may have redriven it already).` }),
  approved: (ref) => ({ kind: 'ok', text: `Approved ${ref}: the agent goes on with it.` }),
  refused: (ref) => ({ kind: 'ok', text: `Refused ${ref}: the agent is told no.` }),
  'approval-expired': (ref) => ({ kind: 'error', text: `Expired: approval ${ref} ran out of time before this answer, so nothing was approved.` }),
  'already-yes': (ref) => ({ kind: 'warn', text: `Already answered: ${ref} stands as yes.` }),
  'already-no': (ref) => ({ kind: 'warn', text: `Already answered: ${ref} stands as no.` }),
  released: (ref) => ({ kind: 'ok', text: `Released the lease of ${ref}; the next worker takes over at once.` }),
  'not-released': (ref) => ({ kind: 'warn', text: `Not released: ${ref} no longer holds the lease.` }),
  sending: () => ({ kind: 'ok', text: 'The held messages go out now.' }),
  'nothing-held': () => ({ kind: 'warn', text: 'Nothing was held: the outbox had already sent everything.' }),
};

export function noticeFor(code: string | undefined, ref: string): Notice | null {
  if (code === undefined || !Object.hasOwn(NOTICES, code)) return null;
  return NOTICES[code as NoticeCode](ref.slice(0, 300));
}
