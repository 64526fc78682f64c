/**
 * The dashboard's login: the API token, typed once into a form, becomes an
 * HttpOnly cookie that holds no secret, only a session id and an expiry,
 * signed with Hono's signed cookies (hono/cookie) under a key derived from
 * the token for this purpose alone. Changing the token signs everyone out;
 * signing out ends the one session on every instance (the store remembers
 * it as ended). Forms carry a CSRF token made with a second derived key, and
 * the cookie is SameSite=Strict, so another site can neither read the
 * dashboard nor post to it in the operator's name.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getSignedCookie, setSignedCookie } from 'hono/cookie';
import { deriveKey, hmacSha256, sameSecret } from '../crypto.js';

export const COOKIE_NAME = 'vigil_session';
/** A working day; the operator logs in again after it. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Labels for the keys derived from the token: one purpose each. */
const COOKIE_PURPOSE = 'vigil dashboard session cookie';
const CSRF_PURPOSE = 'vigil dashboard csrf token';

export interface DashboardSession {
  /** Short random id: who did what in the record of operator actions, and what sign-out ends. */
  id: string;
  expiresAt: number;
}

const SESSION_VALUE = /^([0-9a-f]{12})\.(\d{1,16})$/;

export class LoginKeys {
  private readonly cookieKey: Buffer;
  private readonly csrfKey: Buffer;

  constructor(private readonly token: string) {
    this.cookieKey = deriveKey(token, COOKIE_PURPOSE);
    this.csrfKey = deriveKey(token, CSRF_PURPOSE);
  }

  /** Constant-time, whatever the lengths. */
  tokenMatches(candidate: string): boolean {
    return sameSecret(this.token, candidate);
  }

  /** A new session, its signed cookie set on the response. */
  async startSession(c: Context, now: number): Promise<DashboardSession> {
    const session = { id: randomBytes(6).toString('hex'), expiresAt: now + SESSION_TTL_MS };
    await setSignedCookie(c, COOKIE_NAME, `${session.id}.${session.expiresAt}`, this.cookieKey, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
      secure: new URL(c.req.url).protocol === 'https:',
    });
    return session;
  }

  /** The session the request's cookie stands for, or null: none, unsigned, altered or expired. (Ended sessions are the store's to say.) */
  async readSession(c: Context, now: number): Promise<DashboardSession | null> {
    let value: string | false | undefined;
    try {
      value = await getSignedCookie(c, this.cookieKey, COOKIE_NAME);
    } catch {
      return null; // a cookie header that does not parse is no session
    }
    const match = typeof value === 'string' ? SESSION_VALUE.exec(value) : null;
    if (match === null) return null;
    const expiresAt = Number(match[2]);
    return expiresAt > now ? { id: match[1] as string, expiresAt } : null;
  }

  csrfToken(session: DashboardSession): string {
    return hmacSha256(this.csrfKey, session.id).toString('base64url');
  }

  csrfMatches(session: DashboardSession, candidate: string | null): boolean {
    return candidate !== null && sameSecret(this.csrfToken(session), candidate);
  }
}
