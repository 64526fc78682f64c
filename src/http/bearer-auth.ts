/**
 * Bearer-token middleware for the API. With no token configured the API is
 * off (403 saying how to turn it on), never open: an agent's inbox and its
 * approvals are not for anyone who can reach the port.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './http-error.js';

function digest(text: string): Buffer {
  // Hashing first makes the comparison constant-time whatever the lengths.
  return createHash('sha256').update(text).digest();
}

export function bearerAuth(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (c, next) => {
    if (expected === undefined) {
      throw new HttpError(403, 'api_disabled', 'the API is disabled: set "token" in the config to enable it');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    if (match === null || !timingSafeEqual(expected, digest(match[1] as string))) {
      throw new HttpError(401, 'unauthorized', 'a valid "Authorization: Bearer <token>" header is required', { 'WWW-Authenticate': 'Bearer' });
    }
    await next();
  };
}
