/**
 * The dashboard's login: the API token, typed once into a form, becomes an
 * HttpOnly cookie that holds no secret, only a session id and an expiry
 * signed with a key derived from the token. Nothing is kept on the server:
 * changing the token signs everyone out. Forms carry a CSRF token derived
 * from the session, and the cookie is SameSite=Strict, so another site can
 * neither read the dashboard nor post to it in the operator's name.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const COOKIE_NAME = 'vigil_session';
/** A working day; the operator logs in again after it. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface DashboardSession {
  /** Short random id: who did what in the record of operator actions. */
  id: string;
  expiresAt: number;
}

export class LoginKeys {
  private readonly tokenDigest: Buffer;
  private readonly cookieKey: Buffer;
  private readonly csrfKey: Buffer;

  constructor(token: string) {
    this.tokenDigest = sha256(token);
    // Separate keys for separate purposes: a CSRF token is never a cookie.
    this.cookieKey = createHmac('sha256', token).update('vigil dashboard cookie').digest();
    this.csrfKey = createHmac('sha256', token).update('vigil dashboard csrf').digest();
  }

  /** Constant-time, whatever the lengths. */
  tokenMatches(candidate: string): boolean {
    return timingSafeEqual(this.tokenDigest, sha256(candidate));
  }

  newSession(now: number): { session: DashboardSession; cookie: string } {
    const session = { id: randomBytes(6).toString('hex'), expiresAt: now + SESSION_TTL_MS };
    const value = `${session.id}.${session.expiresAt}`;
    return { session, cookie: `${value}.${this.sign(this.cookieKey, value)}` };
  }

  /** The session a cookie value stands for, or null: unsigned, altered or expired. */
  readSession(cookie: string | undefined, now: number): DashboardSession | null {
    const match = /^([0-9a-f]{12})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? '');
    if (match === null) return null;
    const [, id, expires, mac] = match as unknown as [string, string, string, string];
    if (!safeEqual(mac, this.sign(this.cookieKey, `${id}.${expires}`))) return null;
    const expiresAt = Number(expires);
    return expiresAt > now ? { id, expiresAt } : null;
  }

  csrfToken(session: DashboardSession): string {
    return this.sign(this.csrfKey, session.id);
  }

  csrfMatches(session: DashboardSession, candidate: string | null): boolean {
    return candidate !== null && safeEqual(candidate, this.csrfToken(session));
  }

  private sign(key: Buffer, value: string): string {
    return createHmac('sha256', key).update(value).digest('base64url');
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
