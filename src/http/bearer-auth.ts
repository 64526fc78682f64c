/**
 * The API's bearer token, checked by Hono's own middleware (hono/bearer-auth)
 * with its answers in the service's JSON error shape. With no token
 * configured the API is off (403 saying how to turn it on), never open: an
 * agent's inbox and its approvals are not for anyone who can reach the port.
 * Wrong tokens, and only those, count against the caller's address
 * (wrong-token-lockout.ts); the right one always passes.
 */
import type { MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { sameSecret } from '../crypto.js';
import type { Logger } from '../observability/logger.js';
import { errorBody, HttpError } from './http-error.js';
import { clientAddress, lockoutKey, type WrongTokenLockout } from './wrong-token-lockout.js';

export function apiAuth(token: string | undefined, lockout: WrongTokenLockout, logger: Logger): MiddlewareHandler {
  if (token === undefined) {
    return async () => {
      throw new HttpError(403, 'api_disabled', 'the API is disabled: set "token" in the config to enable it');
    };
  }
  // Hono answers a malformed header 400; the API has always said 401 for any header that is not the token, and keeps it.
  const unauthorized = (): Response =>
    Response.json(errorBody(new HttpError(401, 'unauthorized', 'a valid "Authorization: Bearer <token>" header is required')), { status: 401 });
  const answer = { message: unauthorized, wwwAuthenticateHeader: 'Bearer' };
  return bearerAuth({
    noAuthenticationHeader: answer,
    invalidAuthenticationHeader: answer,
    invalidToken: answer,
    verifyToken: (candidate, c) => {
      const address = clientAddress(c);
      if (sameSecret(token, candidate)) {
        lockout.succeeded(address);
        return true;
      }
      const lockedFor = lockout.lockedFor(address);
      if (lockedFor !== null) {
        throw new HttpError(429, 'too_many_attempts', `too many wrong tokens from this address; try again in ${lockedFor} s`, { 'Retry-After': String(lockedFor) });
      }
      if (lockout.failed(address)) logLockout(logger, address, 'api');
      return false;
    },
  });
}

/** Once per lockout, whichever door the last wrong token came through. */
export function logLockout(logger: Logger, address: string, door: 'api' | 'dashboard'): void {
  logger.warn({ ip: address, counted: lockoutKey(address), door }, 'too many wrong tokens from this address: its wrong tokens get 429 for a minute (the right token still works)');
}
