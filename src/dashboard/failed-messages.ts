/**
 * The outbox's failed messages: what a channel did not take (undeliverable:
 * the inbox has no address for it; rejected: the channel refused for good),
 * kept until an operator redrives them, one channel at a time, once the
 * cause is fixed (a contact set, a token replaced), or drops them (an
 * uncertain send the operator knows landed, a message no longer wanted).
 */
import { html, type Html } from '../http/html.js';
import type { InboxSettings, OutboxFailure } from '../store/contract.js';
import { when } from './format.js';
import { confirmAction } from './layout.js';

export interface FailedData {
  id: string;
  now: number;
  failed: OutboxFailure[];
  /** Every failed message, listed or not (the stats' undeliverable + rejected). */
  total: number;
  settings: InboxSettings;
}

function redriveButton(data: FailedData, channel: string, count: number, csrf: string): Html {
  const hasContact = data.settings.contacts?.[channel] !== undefined;
  const undeliverable = data.failed.some((failure) => failure.channel === channel && failure.kind === 'undeliverable');
  const warning = undeliverable && !hasContact ? ` This inbox still has no contacts.${channel}: set it first, or they fail again.` : '';
  return confirmAction({
    label: `Redrive ${channel}`,
    question: `Hold the failed ${count === 1 ? 'message' : 'messages'} for ${channel} again, to be sent with the next send?${warning}`,
    action: `/inbox/${encodeURIComponent(data.id)}/redrive-outbox`,
    csrf,
    fields: { channel },
  });
}

function dropButton(data: FailedData, channel: string, count: number, csrf: string): Html {
  return confirmAction({
    label: `Drop ${channel}`,
    question: `Drop the failed ${count === 1 ? 'message' : 'messages'} for ${channel}? ${count === 1 ? 'It is' : 'They are'} never sent to ${channel}, and no longer kept here.`,
    action: `/inbox/${encodeURIComponent(data.id)}/drop-outbox`,
    csrf,
    fields: { channel },
  });
}

export function failedMessages(data: FailedData, csrf: string): Html {
  if (data.total === 0 && data.failed.length === 0) return html``;
  const perChannel = new Map<string, number>();
  for (const failure of data.failed) perChannel.set(failure.channel, (perChannel.get(failure.channel) ?? 0) + 1);
  const hidden = data.total - data.failed.length;
  return html`<h3 id="failed-h">Not delivered</h3>
<p><span class="alert">${data.total} failed ${data.total === 1 ? 'message' : 'messages'}</span>: a channel did not take them. Undeliverable: this inbox has no address for the channel; rejected: the channel refused them for good; uncertain: the send may or may not have landed (at-most-once delivery never repeats it on its own). They stay here until redriven or dropped.</p>
<div class="redrives">${[...perChannel].map(([channel, count]) => html`${redriveButton(data, channel, count, csrf)}${dropButton(data, channel, count, csrf)}`)}
${hidden > 0
    ? confirmAction({
        label: 'Redrive every channel',
        question: `Hold all ${data.total} failed messages again, each for the channel that did not take it?`,
        action: `/inbox/${encodeURIComponent(data.id)}/redrive-outbox`,
        csrf,
      })
    : ''}</div>
<div class="scroll"><table aria-describedby="failed-h"><caption>Newest first${hidden > 0 ? `; ${hidden} older not shown (a channel's redrive takes them too)` : ''}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Channel</th><th scope="col">Failure</th><th scope="col">Reason</th><th scope="col">When</th><th scope="col">Message</th></tr></thead>
<tbody>${data.failed.map(
    (failure) => html`<tr><td class="num">${failure.messageId}</td><td>${failure.channel}</td><td><span class="badge ${failure.kind}">${failure.kind}</span></td><td>${failure.error}</td><td>${when(failure.failedAt, data.now)}</td><td><pre class="message">${failure.body}</pre></td></tr>`,
  )}</tbody></table></div>`;
}
