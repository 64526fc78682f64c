/**
 * One-tap approval links: `/a/<inbox>/<approval>?exp=<ms>[&q=<summary>]&sig=<hmac>`.
 * The signature binds inbox, approval id, expiry and the summary shown on
 * the confirm page, so a link cannot be pointed at another approval,
 * stretched past its deadline or made to describe something else; the
 * store still decides (an expired approval stays expired, R8).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ApprovalLink {
  inboxId: string;
  approvalId: string;
  expiresAt: number;
  /**
   * What is asked, shown on the confirm page (at most 200 characters; see
   * describeAction). Optional: without it the page names the approval id.
   */
  summary?: string;
}

/** Long enough to say what is asked, short enough for a link in a chat message. */
export const MAX_SUMMARY_CHARS = 200;

/**
 * The summary as it travels: cut to MAX_SUMMARY_CHARS whole characters, and
 * lone surrogates replaced as a URL would replace them, so the text signed
 * is exactly the text that comes back in the query string.
 */
function normalSummary(summary: string | undefined): string | undefined {
  if (summary === undefined || summary === '') return undefined;
  const chars = Array.from(Buffer.from(summary, 'utf8').toString('utf8'));
  return chars.length <= MAX_SUMMARY_CHARS ? chars.join('') : chars.slice(0, MAX_SUMMARY_CHARS - 1).join('') + '…';
}

function signature(secret: string, link: ApprovalLink): string {
  const summary = normalSummary(link.summary);
  // Links without a summary sign exactly what they signed before summaries existed.
  const text = `${link.inboxId}\u0000${link.approvalId}\u0000${link.expiresAt}` + (summary === undefined ? '' : `\u0000${summary}`);
  return createHmac('sha256', secret).update(text).digest('base64url');
}

export function approvalPath(secret: string, link: ApprovalLink): string {
  const query = new URLSearchParams({ exp: String(link.expiresAt) });
  const summary = normalSummary(link.summary);
  if (summary !== undefined) query.set('q', summary);
  query.set('sig', signature(secret, link));
  return `/a/${encodeURIComponent(link.inboxId)}/${encodeURIComponent(link.approvalId)}?${query}`;
}

/** The full link people tap: `publicUrl` (no trailing slash needed) + approvalPath. */
export function approvalUrl(publicUrl: string, secret: string, link: ApprovalLink): string {
  return publicUrl.replace(/\/+$/, '') + approvalPath(secret, link);
}

/** True when `sig` was made by this secret for exactly this inbox, approval, expiry and summary. */
export function verifyApprovalLink(secret: string, link: ApprovalLink, sig: string): boolean {
  const expected = Buffer.from(signature(secret, link));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * A one-line description of an approval's action for people: a string as
 * is, else the first of `summary`, `description`, `title`, `text` that is a
 * string, else compact JSON. Untrusted text: escape it wherever it is shown.
 */
export function describeAction(action: unknown): string {
  let text: string | undefined;
  if (typeof action === 'string') text = action;
  else if (typeof action === 'object' && action !== null && !Array.isArray(action)) {
    const record = action as Record<string, unknown>;
    for (const name of ['summary', 'description', 'title', 'text']) {
      const value = record[name];
      if (typeof value === 'string' && value !== '') {
        text = value;
        break;
      }
    }
  }
  text ??= JSON.stringify(action) ?? '';
  return normalSummary(text) ?? '';
}
