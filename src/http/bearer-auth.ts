/**
 * Bearer-token middleware for the API. With no token configured the API is
 * off (403 saying how to turn it on), never open: an agent's inbox and its
 * approvals are not for anyone who can reach the port. Wrong tokens count
 * against the caller's address (sign-in-throttle.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../observability/logger.js';
import { HttpError } from './http-error.js';
import { clientAddress, type SignInThrottle } from './sign-in-throttle.js';

function digest(text: string): Buffer {
  // Hashing first makes the comparison constant-time whatever the lengths.
  return createHash('sha256').update(text).digest();
}

export function bearerAuth(token: string | undefined, throttle: SignInThrottle, logger: Logger): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (c, next) => {
    if (expected === undefined) {
      throw new HttpError(403, 'api_disabled', 'the API is disabled: set "token" in the config to enable it');
    }
    const address = clientAddress(c);
    const lockedFor = throttle.lockedFor(address);
    if (lockedFor !== null) {
      throw new HttpError(429, 'too_many_attempts', `too many wrong tokens from this address; try again in ${lockedFor} s`, { 'Retry-After': String(lockedFor) });
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    if (match === null || !timingSafeEqual(expected, digest(match[1] as string))) {
      if (throttle.failed(address)) logger.warn({ ip: address }, 'API: too many wrong tokens from this address; refused for a while');
      throw new HttpError(401, 'unauthorized', 'a valid "Authorization: Bearer <token>" header is required', { 'WWW-Authenticate': 'Bearer' });
    }
    throttle.succeeded(address);
    await next();
  };
}
