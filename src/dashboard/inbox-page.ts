/**
 * One inbox, everything a person needs on a bad night: its events (with
 * payloads and errors), lease, timers, approvals, outbox, session, memory,
 * a chart of the last day, and the record of what operators did. The
 * actions sit beside what they fix, each behind a confirmation.
 */
import { html, type Html } from '../http/html.js';
import type {
  EffectRow,
  ActivityBucket,
  ApprovalRow,
  EventRow,
  EventStatus,
  InboxLimits,
  InboxSettings,
  InboxStats,
  OperatorAction,
  OutboxRow,
  OutboxView,
  TimerRow,
} from '../store/contract.js';
import { activityChart } from './activity-chart.js';
import { failedMessages } from './failed-messages.js';
import { isoTime, prettyJson, when } from './format.js';
import { confirmAction, page, type PageOptions } from './layout.js';
import { healthBadge, healthOf, leaseCell } from './overview-page.js';
import { settingsSection } from './settings-section.js';
import { unknownEffectsSection } from './unknown-effects.js';
import { budgetNotice } from './budget-notice.js';
import { usageSection } from './usage-section.js';

export const EVENT_STATUSES: readonly EventStatus[] = ['pending', 'running', 'done', 'dead'];

export interface EventFilter {
  status: EventStatus | null;
  source: string;
  /** Older than this id (the next page, newest first). */
  before: number | null;
}

export interface InboxPageData {
  id: string;
  now: number;
  stats: InboxStats;
  readySince: number | null;
  events: EventRow[];
  /** The id to continue from, null on the last page. */
  moreBefore: number | null;
  filter: EventFilter;
  timers: TimerRow[];
  approvals: ApprovalRow[];
  outbox: OutboxView;
  session: unknown;
  memory: Record<string, unknown>;
  activity: ActivityBucket[];
  activityBucketMs: number;
  actions: OperatorAction[];
  stuckAfterMs: number;
  settings: InboxSettings;
  /** The limits that apply to the inbox (the service's, or its own setting's). */
  limits: InboxLimits;
  /** The configured channels' names. */
  channels: readonly string[];
  /** Side-effect calls a crash left unknown (unknown-effects.ts). */
  unknownEffects?: EffectRow[];
}

function base(id: string): string {
  return `/inbox/${encodeURIComponent(id)}`;
}

/** A dead event says why it died (`too many attempts`) and what the last run reported. */
function errorCell(event: EventRow): Html {
  if (event.error === null) return html`${event.lastError === null ? '' : html`<span class="muted">last: ${event.lastError}</span>`}`;
  if (event.lastError === null || event.lastError === event.error) return html`${event.error}`;
  return html`${event.error}<br><span class="muted">last: ${event.lastError}</span>`;
}

function eventsSection(data: InboxPageData, csrf: string): Html {
  const { filter } = data;
  const rows = data.events.map(
    (event) => html`<tr class="${event.status}">
<td class="num">${event.id}</td>
<td>${event.source}</td>
<td class="key">${event.sourceId}</td>
<td><span class="badge ${event.status}">${event.status}</span></td>
<td class="num">${event.attempts}</td>
<td>${when(event.receivedAt, data.now)}</td>
<td>${errorCell(event)}</td>
<td><details><summary>Payload</summary><pre class="payload">${prettyJson(event.payload)}</pre></details>
${event.status === 'dead'
      ? confirmAction({
          label: 'Redrive',
          question: `Make event ${event.id} pending again with attempts 0? The agent will run it again.`,
          action: `${base(data.id)}/redrive`,
          csrf,
          fields: { event: String(event.id) },
        })
      : ''}</td>
</tr>`,
  );
  const params = new URLSearchParams();
  if (filter.status !== null) params.set('status', filter.status);
  if (filter.source !== '') params.set('source', filter.source);
  const more = data.moreBefore === null ? null : `${base(data.id)}?${new URLSearchParams([...params, ['before', String(data.moreBefore)]]).toString()}#events`;
  return html`<section aria-labelledby="events-h" id="events">
<h2 id="events-h">Events</h2>
<form method="get" action="${base(data.id)}#events" class="filters">
<label for="status">Status</label>
<select id="status" name="status">
<option value="">any</option>
${EVENT_STATUSES.map((status) => html`<option value="${status}"${filter.status === status ? html` selected` : ''}>${status}</option>`)}
</select>
<label for="source">Source</label>
<input id="source" name="source" value="${filter.source}" maxlength="200" autocomplete="off">
<button type="submit">Filter</button>
</form>
<div data-live id="events-table">
${rows.length === 0
    ? html`<p class="empty">No events${filter.status !== null || filter.source !== '' ? ' match this filter' : ''}.</p>`
    : html`<div class="scroll"><table>
<caption>Newest first${filter.before !== null ? html`, older than event ${filter.before}` : ''}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Source</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Received</th><th scope="col">Error</th><th scope="col">Details</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
</div>
${more === null ? '' : html`<p><a href="${more}">Older events</a></p>`}
</section>`;
}

function leaseSection(data: InboxPageData, csrf: string): Html {
  const { lease } = data.stats;
  const live = lease !== null && lease.until >= data.now;
  return html`<section aria-labelledby="lease-h">
<h2 id="lease-h">Lease</h2>
<div data-live id="lease">
<p>${leaseCell(lease, data.now)}</p>
${lease !== null && live
    ? confirmAction({
        label: 'Release lease',
        question: `End ${lease.holder}'s lease (gen ${lease.gen}) now? If that worker is still running, its finish will be refused and the events retried by the next one.`,
        action: `${base(data.id)}/release`,
        csrf,
        fields: { holder: lease.holder, gen: String(lease.gen) },
        danger: true,
      })
    : ''}
</div>
</section>`;
}

function timerKind(timer: TimerRow): string {
  if (timer.cron !== null) return `cron ${timer.cron}${timer.tz === null ? '' : ` (${timer.tz})`}`;
  if (timer.every !== null) return `every ${timer.every} ms`;
  return 'once';
}

function timersSection(data: InboxPageData): Html {
  return html`<section aria-labelledby="timers-h">
<h2 id="timers-h">Timers</h2>
<div data-live id="timers">
${data.timers.length === 0
    ? html`<p class="empty">No timers.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Id</th><th scope="col">Schedule</th><th scope="col">Next due</th><th scope="col">Missed runs</th><th scope="col">Last skipped</th></tr></thead>
<tbody>${data.timers.map(
        (timer) => html`<tr><td class="key">${timer.id}</td><td>${timerKind(timer)}</td><td>${timer.done ? html`<span class="muted">done</span>` : when(timer.due, data.now)}</td><td>${timer.missed}</td><td class="num">${timer.lastSkipped ?? '—'}</td></tr>`,
      )}</tbody></table></div>`}
</div>
</section>`;
}

function approvalState(approval: ApprovalRow, now: number): 'pending' | 'yes' | 'no' | 'expired' {
  if (approval.answer !== null) return approval.answer;
  return approval.expiresAt > now ? 'pending' : 'expired';
}

function approvalsSection(data: InboxPageData, csrf: string): Html {
  const rows = data.approvals.map((approval) => {
    const state = approvalState(approval, data.now);
    // Behind a confirmation like every action: the answer is final (R8 keeps the first one).
    const answerForm =
      state === 'pending'
        ? html`<details class="confirm">
<summary>Answer</summary>
<form method="post" action="${base(data.id)}/answer" class="answer">
<p>Answer ${approval.id}? The first answer stands.</p>
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="approval" value="${approval.id}">
<button type="submit" name="answer" value="yes" class="primary">Approve</button>
<button type="submit" name="answer" value="no" class="danger">Refuse</button>
</form>
</details>`
        : '';
    return html`<tr class="${state}">
<td class="key">${approval.id}</td>
<td><pre class="payload">${prettyJson(approval.action, 4_000)}</pre></td>
<td><span class="badge ${state}">${state === 'pending' ? 'waiting' : state}</span></td>
<td>${state === 'pending' ? html`expires ${when(approval.expiresAt, data.now)}` : approval.answeredAt !== null ? html`answered ${when(approval.answeredAt, data.now)}` : html`expired ${when(approval.expiresAt, data.now)}`}</td>
<td>${answerForm}</td>
</tr>`;
  });
  return html`<section aria-labelledby="approvals-h">
<h2 id="approvals-h">Approvals</h2>
<div data-live id="approvals">
${rows.length === 0
    ? html`<p class="empty">No approvals asked.</p>`
    : html`<div class="scroll"><table>
<thead><tr><th scope="col">Id</th><th scope="col">Asked</th><th scope="col">State</th><th scope="col">When</th><th scope="col">Answer</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}
</div>
</section>`;
}

function messageRows(rows: OutboxRow[], now: number, sent: boolean): Html {
  return html`${rows.map(
    (message) => html`<tr><td class="num">${message.id}</td><td><pre class="message">${message.body}</pre></td><td>${message.urgent ? 'urgent' : ''}</td><td>${when(sent ? message.sentAt : message.createdAt, now)}</td></tr>`,
  )}`;
}

function outboxSection(data: InboxPageData, csrf: string): Html {
  const { held, sent, nextSendAt } = data.outbox;
  return html`<section aria-labelledby="outbox-h">
<h2 id="outbox-h">Outbox</h2>
<div data-live id="outbox">
<p>${held.length} held${held.length > 0 ? html`; next send ${nextSendAt === null ? 'not scheduled' : nextSendAt <= data.now ? html`<strong>due now</strong>` : when(nextSendAt, data.now)}` : ''}.</p>
${held.length > 0
    ? html`${confirmAction({
        label: 'Send held now',
        question: `Send the ${held.length} held ${held.length === 1 ? 'message' : 'messages'} at once, skipping the pacing gap this one time?`,
        action: `${base(data.id)}/send-now`,
        csrf,
      })}
<div class="scroll"><table><caption>Held, oldest first</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Message</th><th scope="col">Kind</th><th scope="col">Queued</th></tr></thead>
<tbody>${messageRows(held, data.now, false)}</tbody></table></div>`
    : ''}
${sent.length > 0
    ? html`<div class="scroll"><table><caption>Sent, newest first</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Message</th><th scope="col">Kind</th><th scope="col">Sent</th></tr></thead>
<tbody>${messageRows(sent, data.now, true)}</tbody></table></div>`
    : html`<p class="empty">Nothing sent yet.</p>`}
${failedMessages({ id: data.id, now: data.now, failed: data.outbox.failed, total: data.stats.outbox.undeliverable + data.stats.outbox.rejected, settings: data.settings }, csrf)}
</div>
</section>`;
}

function stateSection(data: InboxPageData): Html {
  const keys = Object.keys(data.memory);
  return html`<section aria-labelledby="state-h">
<h2 id="state-h">Session and memory</h2>
<div data-live id="state">
<details><summary>Session${data.session === null ? ' (none)' : ''}</summary><pre class="payload">${prettyJson(data.session)}</pre></details>
<details><summary>Memory (${keys.length} ${keys.length === 1 ? 'key' : 'keys'})</summary><pre class="payload">${prettyJson(data.memory)}</pre></details>
</div>
</section>`;
}

function actionsSection(data: InboxPageData): Html {
  return html`<section aria-labelledby="actions-h">
<h2 id="actions-h">Operator actions</h2>
<div data-live id="actions">
${data.actions.length === 0
    ? html`<p class="empty">None yet.</p>`
    : html`<ul class="actions">${data.actions.map(
        (action) => html`<li>${isoTime(action.at)} <span class="holder">${action.actor}</span>: ${action.action} ${action.target} → ${action.result}</li>`,
      )}</ul>`}
</div>
</section>`;
}

/** Undeliverable and rejected messages, in the head's counts only when there are some. */
function failedCounts(stats: InboxStats): Html {
  const { undeliverable, rejected } = stats.outbox;
  if (undeliverable === 0 && rejected === 0) return html``;
  return html` · <span class="alert">${undeliverable} undeliverable · ${rejected} rejected</span>`;
}

export function inboxPage(data: InboxPageData, options: Omit<PageOptions, 'title' | 'live'> & { csrf: string }): string {
  const { events } = data.stats;
  const health = healthOf(
    {
      id: data.id,
      events,
      lease: data.stats.lease,
      nextTimerAt: null,
      outboxHeld: data.stats.outbox.held,
      approvalsPending: data.stats.approvalsPending,
      readySince: data.readySince,
      unreadable: null,
    },
    data.now,
    data.stuckAfterMs,
  );
  const body = html`
<div data-live id="inbox-head">
<p>${healthBadge(health)} <span class="counts">${events.pending} pending · ${events.running} running · ${events.done} done · <span class="${events.dead > 0 ? 'alert' : ''}">${events.dead} dead</span> · ${data.stats.outbox.held} held${failedCounts(data.stats)} · ${data.stats.approvalsPending} ${data.stats.approvalsPending === 1 ? 'approval' : 'approvals'} waiting</span></p>
${budgetNotice(data.stats.budget, data.now)}
${activityChart(data.activity, data.activityBucketMs)}
</div>
${unknownEffectsSection(data.id, data.unknownEffects, data.now)}
${approvalsSection(data, options.csrf)}
${eventsSection(data, options.csrf)}
${leaseSection(data, options.csrf)}
${outboxSection(data, options.csrf)}
${usageSection(data.stats.usage, data.settings.timeZone ?? 'UTC')}
${settingsSection({ id: data.id, now: data.now, settings: data.settings, channels: data.channels, usage: data.stats.usage, limits: data.limits }, options.csrf)}
${timersSection(data)}
${stateSection(data)}
${actionsSection(data)}`;
  return page({ ...options, title: `Inbox ${data.id}`, live: true }, body);
}
