/**
 * One-tap approval links: `/a/<inbox>/<approval>?exp=<ms>[&q=<summary>]&sig=<hmac>`.
 * The signature binds inbox, approval id, expiry and the summary shown on
 * the confirm page, so a link cannot be pointed at another approval,
 * stretched past its deadline or made to describe something else; the
 * store still decides (an expired approval stays expired, R8).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { normalSummary, type ApprovalLink } from '../agent/approval-summary.js';

export { describeAction, MAX_SUMMARY_CHARS, type ApprovalLink } from '../agent/approval-summary.js';


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
