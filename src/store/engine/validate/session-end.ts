/** The checks on endSession/sessionEnded (contract.ts), before a backend stores anything. */
import { VigilError } from '../../../errors.js';
import { checkStorable, describe, validateTime } from './text.js';

/** Session ids are short random strings; this bounds what a caller can make a store keep. */
const MAX_SESSION_ID_LENGTH = 128;

export function validateSessionId(sessionId: unknown): string {
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new VigilError('invalid_argument', `session id must be a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters, got ${describe(sessionId)}`);
  }
  checkStorable('invalid_argument', 'session id', sessionId);
  return sessionId;
}

export function validateSessionEnd(sessionId: unknown, expiresAt: unknown): { sessionId: string; expiresAt: number } {
  return { sessionId: validateSessionId(sessionId), expiresAt: validateTime('expiresAt', expiresAt) };
}
