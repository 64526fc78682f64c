/**
 * One-tap approval links: `/a/<inbox>/<approval>?exp=<ms>&sig=<hmac>`. The
 * signature binds inbox, approval id and expiry, so a link cannot be
 * pointed at another approval or stretched past its deadline; the store
 * still decides (an expired approval stays expired, R8).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ApprovalLink {
  inboxId: string;
  approvalId: string;
  expiresAt: number;
}

function signature(secret: string, link: ApprovalLink): string {
  return createHmac('sha256', secret).update(`${link.inboxId}\u0000${link.approvalId}\u0000${link.expiresAt}`).digest('base64url');
}

export function approvalPath(secret: string, link: ApprovalLink): string {
  const query = new URLSearchParams({ exp: String(link.expiresAt), sig: signature(secret, link) });
  return `/a/${encodeURIComponent(link.inboxId)}/${encodeURIComponent(link.approvalId)}?${query}`;
}

/** True when `sig` was made by this secret for exactly this inbox, approval and expiry. */
export function verifyApprovalLink(secret: string, link: ApprovalLink, sig: string): boolean {
  const expected = Buffer.from(signature(secret, link));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
