/** The overview: every inbox at a glance, a page at a time; dead and stuck ones stand out. */
import { html, type Html } from '../http/html.js';
import type { InboxList, InboxSummary } from '../store/contract.js';
import { when } from './format.js';
import { page, type PageOptions } from './layout.js';

export interface OverviewQuery {
  search: string;
  attention: boolean;
  after: string | null;
  stuckAfterMs: number;
}

export type InboxHealth = 'unreadable' | 'dead' | 'stuck' | 'running' | 'idle';

/** What needs a person first: an inbox that cannot be read, dead events, then work nobody took. */
export function healthOf(inbox: InboxSummary, now: number, stuckAfterMs: number): InboxHealth {
  if (inbox.unreadable !== null) return 'unreadable';
  if (inbox.events.dead > 0) return 'dead';
  if (inbox.readySince !== null && inbox.readySince <= now - stuckAfterMs) return 'stuck';
  if (inbox.lease !== null && inbox.lease.until >= now) return 'running';
  return 'idle';
}

const HEALTH_TEXT: Record<InboxHealth, string> = { unreadable: 'unreadable', dead: 'dead events', stuck: 'stuck', running: 'running', idle: 'idle' };

export function healthBadge(health: InboxHealth): Html {
  return html`<span class="badge ${health}">${HEALTH_TEXT[health]}</span>`;
}

export function leaseCell(lease: InboxSummary['lease'], now: number): Html {
  if (lease === null) return html`<span class="muted">never held</span>`;
  if (lease.until < now) return html`<span class="muted">free (last: <span class="holder">${lease.holder}</span>, gen ${lease.gen})</span>`;
  return html`<span class="holder">${lease.holder}</span> · gen ${lease.gen} · expires ${when(lease.until, now)}`;
}

function row(inbox: InboxSummary, now: number, stuckAfterMs: number): Html {
  const health = healthOf(inbox, now, stuckAfterMs);
  if (inbox.unreadable !== null) {
    // Nothing of it could be read: the reason, in place of counts that would say zero.
    return html`<tr class="unreadable">
<th scope="row"><a href="/inbox/${encodeURIComponent(inbox.id)}">${inbox.id}</a></th>
<td>${healthBadge(health)}</td>
<td colspan="8" class="alert">unreadable: ${inbox.unreadable}</td>
</tr>`;
  }
  const { pending, running, done, dead } = inbox.events;
  return html`<tr class="${health}">
<th scope="row"><a href="/inbox/${encodeURIComponent(inbox.id)}">${inbox.id}</a></th>
<td>${healthBadge(health)}</td>
<td class="num">${pending}</td>
<td class="num">${running}</td>
<td class="num">${done}</td>
<td class="num${dead > 0 ? ' alert' : ''}">${dead}</td>
<td>${leaseCell(inbox.lease, now)}</td>
<td>${when(inbox.nextTimerAt, now)}</td>
<td class="num">${inbox.outboxHeld}</td>
<td class="num">${inbox.approvalsPending}</td>
</tr>`;
}

function queryString(query: OverviewQuery, after: string | null): string {
  const params = new URLSearchParams();
  if (query.search !== '') params.set('q', query.search);
  if (query.attention) params.set('attention', '1');
  if (after !== null) params.set('after', after);
  const text = params.toString();
  return text === '' ? '/' : `/?${text}`;
}

export function overviewPage(list: InboxList, query: OverviewQuery, options: Omit<PageOptions, 'title' | 'live'>): string {
  const { now } = list;
  const body = html`
<form method="get" action="/" class="filters" role="search">
<label for="q">Search inboxes</label>
<input id="q" name="q" type="search" value="${query.search}" maxlength="128" autocomplete="off">
<label class="check"><input type="checkbox" name="attention" value="1"${query.attention ? html` checked` : ''}> Only those that need attention</label>
<button type="submit">Show</button>
</form>
<div data-live id="overview">
<p class="summary">${list.needAttention > 0
    ? html`<a class="alert" href="/?attention=1"><strong>${list.needAttention}</strong> ${list.needAttention === 1 ? 'inbox needs' : 'inboxes need'} attention</a> (dead events, or work waiting over ${Math.round(query.stuckAfterMs / 1000)}s). `
    : html`No inbox needs attention. `}${list.total} ${query.search !== '' || query.attention ? 'matching' : ''} ${list.total === 1 ? 'inbox' : 'inboxes'}.</p>
${list.inboxes.length === 0
    ? html`<p class="empty">${query.search !== '' || query.attention ? 'No inbox matches.' : 'No inbox has stored anything yet. Send a webhook or a message to start one.'}</p>`
    : html`<div class="scroll"><table class="inboxes">
<caption>Inboxes, by id</caption>
<thead><tr><th scope="col">Inbox</th><th scope="col">State</th><th scope="col">Pending</th><th scope="col">Running</th><th scope="col">Done</th><th scope="col">Dead</th><th scope="col">Lease</th><th scope="col">Next timer</th><th scope="col">Held</th><th scope="col">Approvals</th></tr></thead>
<tbody>${list.inboxes.map((inbox) => row(inbox, now, query.stuckAfterMs))}</tbody>
</table></div>`}
</div>
<nav class="pages" aria-label="Pages">
${query.after !== null ? html`<a href="${queryString(query, null)}">First page</a>` : ''}
${list.next !== null ? html`<a href="${queryString(query, list.next)}" rel="next">Next page</a>` : ''}
</nav>`;
  return page({ ...options, title: 'Inboxes', live: true }, body);
}
