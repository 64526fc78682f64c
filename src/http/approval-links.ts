/**
 * One-tap approval links: `/a/<inbox>/<approval>?exp=<ms>[&q=<summary>]&sig=<hmac>`.
 * The signature binds inbox, approval id, expiry and the summary shown on
 * the confirm page, so a link cannot be pointed at another approval,
 * stretched past its deadline or made to describe something else; the
 * store still decides (an expired approval stays expired, R8).
 *
 * Links go to chat and email by design, so anyone who sees one holds an
 * HMAC they can test guesses against offline. The HMAC is keyed with a key
 * derived from the link secret (by default the API token) for links alone
 * (HKDF, label "vigil approval link"): a guess must still find the whole
 * secret, which is at least 32 characters, and nothing else is ever signed
 * with that key. Links signed before this, with the secret itself, are not
 * accepted: keeping them would keep the secret in use as a link key.
 */
import { deriveKey, hmacSha256, sameBytes } from '../crypto.js';
import { normalSummary, type ApprovalLink } from '../agent/approval-summary.js';

export { describeAction, MAX_SUMMARY_CHARS, type ApprovalLink } from '../agent/approval-summary.js';


const LINK_PURPOSE = 'vigil approval link';

function signature(secret: string, link: ApprovalLink): string {
  const summary = normalSummary(link.summary);
  const text = `${link.inboxId}\u0000${link.approvalId}\u0000${link.expiresAt}` + (summary === undefined ? '' : `\u0000${summary}`);
  return hmacSha256(deriveKey(secret, LINK_PURPOSE), text).toString('base64url');
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
  return sameBytes(Buffer.from(signature(secret, link)), Buffer.from(sig));
}
