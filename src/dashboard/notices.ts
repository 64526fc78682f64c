/**
 * What the inbox page says after an action. The redirect carries a code
 * from this fixed set and, for some, one id (an event id, a lease
 * generation, an approval id, a count, a setting's name); never text. Each
 * is checked before it is shown: a number must be a positive whole number,
 * an approval id must be one of this inbox's approvals, a setting must be
 * one the settings form has (a contact only for a channel this service or
 * this inbox knows). So a crafted link can make the page say only what the
 * dashboard itself says after an action, about things that exist, and never
 * put words of its own into an "ok" notice.
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
  | 'nothing-held'
  | 'settings-saved'
  | 'settings-unchanged'
  | 'settings-invalid'
  | 'outbox-redriven'
  | 'outbox-not-redriven'
  | 'outbox-dropped'
  | 'outbox-not-dropped';

type Notice = { kind: 'ok' | 'warn' | 'error'; text: string };

/** What a notice's ref must be: an event id, a lease generation or a count (numbers), an approval of this inbox, a setting, or nothing. */
type RefKind = 'event' | 'gen' | 'count' | 'approval' | 'setting' | 'none';

/** What the page knows exists, to check a ref against. */
export interface NoticeContext {
  /** This inbox's approvals (those the page lists). */
  approvals: ReadonlySet<string>;
  /** Channel names a contact may be for: the configured channels and this inbox's contacts. */
  channels: ReadonlySet<string>;
}

/**
 * What each field of the settings form must be, said without the value
 * typed (the notice is rebuilt from the link, which carries the field's
 * name only).
 */
const SETTING_RULES: Record<string, string> = {
  contacts: 'must each be a channel name (lowercase letters, digits, - and _) with an address of at most 1,000 characters',
  'outbox.gapMs': 'must be a whole number of milliseconds, 0 or more',
  'outbox.dailyLimit': 'must be a whole number, 0 or more',
  'outbox.quietHours': 'need a start and a different end, both HH:MM',
  'outbox.quietHours.from': 'must be a time of day, HH:MM (00:00 to 23:59)',
  'outbox.quietHours.to': 'must be a time of day, HH:MM (00:00 to 23:59)',
  'outbox.quietHours.timeZone': 'must be an IANA time zone, such as Europe/Berlin',
  'wake.debounceMs': 'must be a whole number of milliseconds, 0 or more',
  'wake.maxWaitMs': 'must be a whole number of milliseconds, at least the debounce (and needs a debounce)',
  timeZone: 'must be an IANA time zone, such as Europe/Berlin',
  'budget.tokensPerDay': 'must be a whole number of tokens, 0 or more',
  'budget.costPerDayUsd': 'must be an amount of US dollars, 0 or more',
  'budget.costPerMonthUsd': 'must be an amount of US dollars, 0 or more',
  'budget.minimumLeftUsd': 'must be an amount of US dollars, 0 or more',
};

function settingRule(field: string | null): string {
  if (field === null) return 'Not saved: a setting is not valid.';
  const rule = SETTING_RULES[field.startsWith('contacts.') ? 'contacts' : field] as string;
  return `Not saved: ${field} ${field.startsWith('contacts.') ? 'must be an address of at most 1,000 characters' : rule}.`;
}

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
  'settings-saved': { ref: 'none', say: () => ({ kind: 'ok', text: 'Saved: the outbox and the workers follow the new settings from now on.' }) },
  'settings-unchanged': { ref: 'none', say: () => ({ kind: 'warn', text: 'Nothing changed: the form had no changes.' }) },
  'settings-invalid': { ref: 'setting', say: (ref) => ({ kind: 'error', text: `${settingRule(ref)} Nothing changed.` }) },
  'outbox-redriven': {
    ref: 'count',
    say: (ref) => ({ kind: 'ok', text: `Redriven: ${ref === null ? 'the messages are' : ref === '1' ? '1 message is' : `${ref} messages are`} held again for their channel and go out with the next send.` }),
  },
  'outbox-not-redriven': { ref: 'none', say: () => ({ kind: 'warn', text: 'Nothing to redrive: that channel has no failed messages (someone may have redriven them already).' }) },
  'outbox-dropped': {
    ref: 'count',
    say: (ref) => ({ kind: 'ok', text: `Dropped: ${ref === null ? 'the messages are' : ref === '1' ? '1 message is' : `${ref} messages are`} no longer kept for their channel and will not be sent to it.` }),
  },
  'outbox-not-dropped': { ref: 'none', say: () => ({ kind: 'warn', text: 'Nothing to drop: that channel has no failed messages (someone may have redriven or dropped them already).' }) },
};

/** The notice for `code` with `ref` where it checks out, else without it; null for a code not in the set. */
export function noticeFor(code: string | undefined, ref: string | undefined, known: NoticeContext): Notice | null {
  if (code === undefined || !Object.hasOwn(NOTICES, code)) return null;
  const notice = NOTICES[code as NoticeCode];
  return notice.say(checkedRef(notice.ref, ref, known));
}

function checkedRef(kind: RefKind, ref: string | undefined, known: NoticeContext): string | null {
  if (ref === undefined || kind === 'none') return null;
  if (kind === 'approval') return known.approvals.has(ref) ? ref : null;
  if (kind === 'setting') return checkedSetting(ref, known.channels);
  return /^[1-9]\d{0,15}$/.test(ref) ? ref : null;
}

/** A setting the form has; a contact of a channel nobody knows is named as "contacts" (its name came from the link). */
export function checkedSetting(field: string, channels: ReadonlySet<string>): string | null {
  if (field.startsWith('contacts.')) return channels.has(field.slice('contacts.'.length)) ? field : 'contacts';
  return Object.hasOwn(SETTING_RULES, field) ? field : null;
}
