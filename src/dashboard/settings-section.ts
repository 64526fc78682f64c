/**
 * The inbox page's settings: its person's contacts, pacing (gap, quiet
 * hours, daily limit) and wake debounce, as they stand, and the form that
 * changes them (settings-form.ts turns it into a merge patch). The form sits
 * behind a disclosure like every action, so live updates leave it alone
 * while it is open.
 */
import { html, type Html } from '../http/html.js';
import type { InboxLimits, InboxSettings, InboxUsage } from '../store/contract.js';
import { quietState } from '../store/index.js';
import { duration, when } from './format.js';
import { formValues, NEW_CONTACT_ADDRESS, NEW_CONTACT_CHANNEL, NUMBER_FIELDS, QUIET_FIELDS, TIME_ZONE_FIELD, WAS } from './settings-form.js';

export interface SettingsData {
  id: string;
  now: number;
  settings: InboxSettings;
  /** The configured channels' names, offered for a new contact. */
  channels: readonly string[];
  /** What the inbox holds against its quotas, and the limits that apply (the service's, or its own). */
  usage: InboxUsage;
  limits: InboxLimits;
}

const LABELS: Record<string, string> = {
  timeZone: 'Time zone (IANA): days, months, quiet hours',
  'budget.tokensPerDay': 'Tokens a day, at most',
  'budget.costPerDayUsd': 'US dollars a day, at most',
  'budget.costPerMonthUsd': 'US dollars a month, at most',
  'budget.minimumLeftUsd': 'Start no run with less left than (USD)',
  'outbox.gapMs': 'Gap between paced sends (ms)',
  'outbox.dailyLimit': 'Paced sends a day, at most',
  'outbox.quietHours.from': 'Quiet from (HH:MM)',
  'outbox.quietHours.to': 'Quiet until (HH:MM)',
  'outbox.quietHours.timeZone': 'Time zone (IANA)',
  'wake.debounceMs': 'Debounce (ms)',
  'wake.maxWaitMs': 'Wait at most (ms)',
  'limits.pendingEventsPerInbox': 'Pending events, at most',
  'limits.pendingBytesPerInbox': 'Pending payload bytes, at most',
  'limits.eventsPerMinutePerInbox': 'Events from outside a minute, at most',
};

const PLACEHOLDERS: Record<string, string> = {
  timeZone: 'UTC',
  'budget.tokensPerDay': "the service's",
  'budget.costPerDayUsd': "the service's",
  'budget.costPerMonthUsd': "the service's",
  'budget.minimumLeftUsd': "the service's",
  'outbox.gapMs': "the store's",
  'outbox.dailyLimit': 'no limit',
  'outbox.quietHours.from': '22:00',
  'outbox.quietHours.to': '07:00',
  'outbox.quietHours.timeZone': 'the inbox time zone',
  'wake.debounceMs': 'none',
  'wake.maxWaitMs': '10 × debounce',
  'limits.pendingEventsPerInbox': "the service's",
  'limits.pendingBytesPerInbox': "the service's",
  'limits.eventsPerMinutePerInbox': "the service's",
};

function contactsView(settings: InboxSettings): Html {
  const contacts = Object.entries(settings.contacts ?? {});
  if (contacts.length === 0) {
    return html`<span class="muted">none: a channel that needs an address (Slack as a bot, email without a <code>to</code>) cannot reach this person, and its messages are undeliverable until one is set</span>`;
  }
  return html`${contacts.map(([channel, address], i) => html`${i > 0 ? ' · ' : ''}${channel}: <span class="key">${address}</span>`)}`;
}

function pacingView(settings: InboxSettings, now: number): Html {
  const outbox = settings.outbox ?? {};
  const gap = outbox.gapMs === undefined ? html`the store's gap between paced sends` : html`${outbox.gapMs === 0 ? 'no gap' : `${duration(outbox.gapMs)} gap`} between paced sends`;
  const limit = outbox.dailyLimit === undefined ? '' : html`; at most ${outbox.dailyLimit} paced ${outbox.dailyLimit === 1 ? 'send' : 'sends'} a day (${outbox.quietHours?.timeZone ?? settings.timeZone ?? 'UTC'})`;
  const given = outbox.quietHours;
  const hours = given === undefined ? undefined : { ...given, timeZone: given.timeZone ?? settings.timeZone ?? 'UTC' };
  if (hours === undefined) return html`${gap}${limit}; no quiet hours`;
  const state = quietState(hours, now);
  const quiet = state.quiet ? html`<strong>quiet now</strong>, until ${when(state.endsAt, now)}` : html`not quiet now`;
  return html`${gap}${limit}; quiet hours ${hours.from}–${hours.to} ${hours.timeZone} (${quiet}): urgent messages still go at once`;
}

function budgetView(settings: InboxSettings): Html {
  const budget = settings.budget ?? {};
  const parts = [
    budget.costPerDayUsd === undefined ? null : `$${budget.costPerDayUsd} a day`,
    budget.costPerMonthUsd === undefined ? null : `$${budget.costPerMonthUsd} a month`,
    budget.tokensPerDay === undefined ? null : `${budget.tokensPerDay} tokens a day`,
    budget.minimumLeftUsd === undefined ? null : `no run with less than $${budget.minimumLeftUsd} left`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? html`the service's, if any` : html`${parts.join(' · ')} (its own; the service's for the rest)`;
}

function wakeView(settings: InboxSettings): Html {
  const debounce = settings.wake?.debounceMs;
  if (debounce === undefined || debounce === 0) return html`no debounce: each event makes the inbox ready at once`;
  const maxWait = settings.wake?.maxWaitMs ?? debounce * 10;
  return html`a burst is one run: ready once the newest event is ${duration(debounce)} old, or the oldest ${duration(maxWait)} old`;
}

/**
 * Usage against each limit; one at its limit in red, saying what a sender
 * gets: a delivery that would pass it is answered 429 and not stored.
 */
function quotaView({ usage, limits, settings }: SettingsData): Html {
  const own = settings.limits ?? {};
  const rows: [string, number, number, boolean][] = [
    ['pending events', usage.pendingEvents, limits.pendingEventsPerInbox, own.pendingEventsPerInbox !== undefined],
    ['pending bytes', usage.pendingBytes, limits.pendingBytesPerInbox, own.pendingBytesPerInbox !== undefined],
    ['events from outside this minute', usage.eventsThisMinute, limits.eventsPerMinutePerInbox, own.eventsPerMinutePerInbox !== undefined],
  ];
  const full = usage.pendingEvents >= limits.pendingEventsPerInbox || usage.pendingBytes >= limits.pendingBytesPerInbox;
  const limited = usage.eventsThisMinute >= limits.eventsPerMinutePerInbox;
  return html`${rows.map(([what, used, limit, isOwn], i) => html`${i > 0 ? ' · ' : ''}<span class="${used >= limit ? 'alert' : ''}">${what} ${used} of ${limit}</span>${isOwn ? ' (its own)' : ''}`)}${
    full ? html`; <strong class="alert">full: deliveries are refused (429 inbox_full)</strong>` : limited ? html`; <strong class="alert">rate limited this minute (429)</strong>` : ''
  }`;
}

function field(path: string, value: string, numeric: boolean): Html {
  const id = `setting-${path.replace(/\./g, '-')}`;
  return html`<div class="field"><label for="${id}">${LABELS[path] ?? path}</label>
<input id="${id}" name="${path}" value="${value}" placeholder="${PLACEHOLDERS[path] ?? ''}" autocomplete="off"${numeric ? html` inputmode="numeric"` : ''}>
<input type="hidden" name="${WAS}${path}" value="${value}"></div>`;
}

function editForm(data: SettingsData, csrf: string): Html {
  const values = formValues(data.settings);
  const contacts = Object.keys(data.settings.contacts ?? {});
  const listId = 'channel-names';
  return html`<details class="confirm">
<summary>Edit settings</summary>
<form method="post" action="/inbox/${encodeURIComponent(data.id)}/settings" class="settings-form">
<p>Change this inbox's settings? Only the fields you change are changed; an emptied field goes back to the default. A value that is not valid changes nothing.</p>
<input type="hidden" name="csrf" value="${csrf}">
<fieldset><legend>Contacts</legend>
${contacts.map((channel) => html`<div class="field"><label for="contact-${channel}">${channel}</label>
<input id="contact-${channel}" name="contacts.${channel}" value="${values[`contacts.${channel}`] ?? ''}" autocomplete="off">
<input type="hidden" name="${WAS}contacts.${channel}" value="${values[`contacts.${channel}`] ?? ''}"></div>`)}
<div class="field"><label for="new-contact-channel">New contact: channel</label>
<input id="new-contact-channel" name="${NEW_CONTACT_CHANNEL}" list="${listId}" autocomplete="off"></div>
<div class="field"><label for="new-contact-address">New contact: address</label>
<input id="new-contact-address" name="${NEW_CONTACT_ADDRESS}" autocomplete="off"></div>
<datalist id="${listId}">${data.channels.filter((name) => !contacts.includes(name)).map((name) => html`<option value="${name}"></option>`)}</datalist>
</fieldset>
<fieldset><legend>Person</legend>
${field(TIME_ZONE_FIELD, values[TIME_ZONE_FIELD] ?? '', false)}
</fieldset>
<fieldset><legend>Outbox</legend>
${field('outbox.gapMs', values['outbox.gapMs'] ?? '', true)}
${field('outbox.dailyLimit', values['outbox.dailyLimit'] ?? '', true)}
${QUIET_FIELDS.map((path) => field(path, values[path] ?? '', false))}
</fieldset>
<fieldset><legend>Wake</legend>
${NUMBER_FIELDS.filter((path) => path.startsWith('wake.')).map((path) => field(path, values[path] ?? '', true))}
</fieldset>
<fieldset><legend>Quotas (operator only: the agent cannot change them)</legend>
${NUMBER_FIELDS.filter((path) => path.startsWith('limits.')).map((path) => field(path, values[path] ?? '', true))}
</fieldset>
<fieldset><legend>Budget (operator only: the agent cannot change it)</legend>
${NUMBER_FIELDS.filter((path) => path.startsWith('budget.')).map((path) => field(path, values[path] ?? '', true))}
</fieldset>
<button type="submit" class="primary">Save settings</button>
</form>
</details>`;
}

export function settingsSection(data: SettingsData, csrf: string): Html {
  return html`<section aria-labelledby="settings-h">
<h2 id="settings-h">Settings</h2>
<div data-live id="settings">
<dl class="settings">
<dt>Contacts</dt><dd>${contactsView(data.settings)}</dd>
<dt>Pacing</dt><dd>${pacingView(data.settings, data.now)}</dd>
<dt>Wake</dt><dd>${wakeView(data.settings)}</dd>
<dt>Quotas</dt><dd>${quotaView(data)}</dd>
<dt>Time zone</dt><dd>${data.settings.timeZone ?? 'UTC'}</dd>
<dt>Budget</dt><dd>${budgetView(data.settings)}</dd>
</dl>
${editForm(data, csrf)}
</div>
</section>`;
}
