/**
 * The settings form's fields, and the JSON merge patch a submitted form
 * means. Each field is named by its settings path (`outbox.gapMs`,
 * `contacts.slack`) and carries the value the page showed in a hidden
 * `was:<path>` field; only fields the operator changed go into the patch.
 * So an operator who edits the gap does not put back the quiet hours the
 * person changed (through the agent) since the page was loaded, and the
 * record of the action names exactly what the operator changed.
 *
 * Values are passed on as typed (a number when the text is one): the
 * engine checks them (validate/settings.ts) and names the field it refuses,
 * so the form and the API can never disagree about what is valid.
 */
import { VigilError } from '../errors.js';
import { HttpError } from '../http/http-error.js';
import type { InboxSettings } from '../store/contract.js';

export const NUMBER_FIELDS = [
  'outbox.gapMs',
  'outbox.dailyLimit',
  'wake.debounceMs',
  'wake.maxWaitMs',
  // The operator's own (validate/limits.ts): an agent cannot set them, the dashboard can.
  'limits.pendingEventsPerInbox',
  'limits.pendingBytesPerInbox',
  'limits.eventsPerMinutePerInbox',
  // The operator's own too (engine/budget.ts); amounts in US dollars may have cents.
  'budget.tokensPerDay',
  'budget.costPerDayUsd',
  'budget.costPerMonthUsd',
  'budget.minimumLeftUsd',
] as const;
/** The person's IANA time zone: their days, months, quiet hours and daily limit unless those name their own. */
export const TIME_ZONE_FIELD = 'timeZone';
export const QUIET_FIELDS = ['outbox.quietHours.from', 'outbox.quietHours.to', 'outbox.quietHours.timeZone'] as const;
export const NEW_CONTACT_CHANNEL = 'new-contact.channel';
export const NEW_CONTACT_ADDRESS = 'new-contact.address';
export const WAS = 'was:';

export interface SettingsEdit {
  /** The merge patch; `{}` when nothing changed. */
  patch: Record<string, unknown>;
  /** What it changes, path by path (contacts one by one, quiet hours as one); `to` null removes. */
  changes: { path: string; to: unknown }[];
}

/** The form's value of each field, as the page shows it: '' for a setting that is not set. */
export function formValues(settings: InboxSettings): Record<string, string> {
  const text = (value: number | undefined): string => (value === undefined ? '' : String(value));
  const quiet = settings.outbox?.quietHours;
  const values: Record<string, string> = {
    timeZone: settings.timeZone ?? '',
    'outbox.gapMs': text(settings.outbox?.gapMs),
    'outbox.dailyLimit': text(settings.outbox?.dailyLimit),
    'wake.debounceMs': text(settings.wake?.debounceMs),
    'wake.maxWaitMs': text(settings.wake?.maxWaitMs),
    'outbox.quietHours.from': quiet?.from ?? '',
    'outbox.quietHours.to': quiet?.to ?? '',
    'outbox.quietHours.timeZone': quiet?.timeZone ?? '',
    'limits.pendingEventsPerInbox': text(settings.limits?.pendingEventsPerInbox),
    'limits.pendingBytesPerInbox': text(settings.limits?.pendingBytesPerInbox),
    'limits.eventsPerMinutePerInbox': text(settings.limits?.eventsPerMinutePerInbox),
    'budget.tokensPerDay': text(settings.budget?.tokensPerDay),
    'budget.costPerDayUsd': text(settings.budget?.costPerDayUsd),
    'budget.costPerMonthUsd': text(settings.budget?.costPerMonthUsd),
    'budget.minimumLeftUsd': text(settings.budget?.minimumLeftUsd),
  };
  for (const [channel, address] of Object.entries(settings.contacts ?? {})) values[`contacts.${channel}`] = address;
  return values;
}

/** The patch a submitted settings form means; 400 for a field the form does not have. */
export function settingsPatch(form: URLSearchParams): SettingsEdit {
  for (const name of new Set(form.keys())) {
    if (!isFormField(name)) throw new HttpError(400, 'invalid_form', `The settings form has no field ${JSON.stringify(name.slice(0, 100))}.`);
  }
  const value = (name: string): string => (form.get(name) ?? '').trim();
  const edited = (path: string): boolean => form.has(path) && value(path) !== value(`${WAS}${path}`);
  const patch: Record<string, unknown> = {};
  const changes: SettingsEdit['changes'] = [];
  const set = (path: string[], to: unknown): void => {
    let node = patch;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1] as string] = to;
    changes.push({ path: path.join('.'), to });
  };

  for (const name of new Set(form.keys())) {
    if (name.startsWith('contacts.') && edited(name)) set(['contacts', name.slice('contacts.'.length)], value(name) === '' ? null : value(name));
  }
  const channel = value(NEW_CONTACT_CHANNEL);
  const address = value(NEW_CONTACT_ADDRESS);
  if (channel !== '' || address !== '') {
    if (channel === '') throw new VigilError('invalid_settings', 'settings contacts: a new contact needs the name of its channel', { field: 'contacts' });
    // An empty address is passed on: the engine refuses it, naming the contact.
    set(['contacts', channel], address);
  }
  if (QUIET_FIELDS.some(edited)) {
    const [from, to, timeZone] = QUIET_FIELDS.map(value) as [string, string, string];
    // All three emptied: no quiet hours. Otherwise as typed, checked together; no zone: the inbox's.
    set(['outbox', 'quietHours'], from === '' && to === '' && timeZone === '' ? null : { from, to, ...(timeZone === '' ? {} : { timeZone }) });
  }
  if (edited(TIME_ZONE_FIELD)) set([TIME_ZONE_FIELD], value(TIME_ZONE_FIELD) === '' ? null : value(TIME_ZONE_FIELD));
  for (const path of NUMBER_FIELDS) {
    if (edited(path)) set(path.split('.'), numberOrText(value(path)));
  }
  return { patch, changes };
}

/** What an edit did, for the record and the log: values of pacing, never a person's address. */
export function describeEdit(edit: SettingsEdit): string {
  return edit.changes
    .map(({ path, to }) => {
      if (to === null) return `${path} removed`;
      if (path.startsWith('contacts.')) return `${path} set`;
      if (path === 'outbox.quietHours') {
        const quiet = to as { from: string; to: string; timeZone?: string };
        return `${path} = ${quiet.from}-${quiet.to}${quiet.timeZone === undefined ? '' : ` ${quiet.timeZone}`}`;
      }
      return `${path} = ${String(to)}`;
    })
    .join(', ');
}

function isFormField(name: string): boolean {
  const field = name.startsWith(WAS) ? name.slice(WAS.length) : name;
  if (name === 'csrf' || name === NEW_CONTACT_CHANNEL || name === NEW_CONTACT_ADDRESS || field === TIME_ZONE_FIELD) return true;
  return (NUMBER_FIELDS as readonly string[]).includes(field) || (QUIET_FIELDS as readonly string[]).includes(field) || /^contacts\.[^.]+$/.test(field);
}

/** "60000" is a number; anything else ("-5", "1.5", "soon") goes on as typed, for the engine to name. */
function numberOrText(text: string): number | string | null {
  if (text === '') return null;
  return /^-?\d{1,16}(\.\d+)?$/.test(text) ? Number(text) : text;
}
