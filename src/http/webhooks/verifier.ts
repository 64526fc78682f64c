/**
 * What every webhook verifier does, and the pieces they share. A verifier
 * checks the provider's signature on the raw bytes before anything is
 * parsed or stored, then names the delivery's dedupe key.
 */
import type { HeaderReader } from '../header-values.js';

export type RejectionReason = 'missing_signature' | 'bad_signature' | 'stale_timestamp';

/** A delivery refused before storing: 401 with `reason` as the error code. */
export class WebhookRejected extends Error {
  constructor(
    readonly reason: RejectionReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRejected';
  }
}

export type { HeaderReader } from '../header-values.js';

export interface WebhookVerifier {
  /** Throws WebhookRejected unless `body` carries a valid, fresh signature. `now` is in milliseconds. */
  verify(body: Buffer, headers: HeaderReader, now: number): void;
  /** The delivery's unique id, from a header or the parsed body; undefined when it is missing. */
  key(headers: HeaderReader, payload: unknown): string | undefined;
  /** A reply that replaces storing, for handshakes such as Slack's url_verification. */
  handshake?(payload: unknown): unknown;
  /** The verified body as the payload to store; default: JSON (400 bad_json otherwise). */
  decode?(body: Buffer, headers: HeaderReader): unknown;
  /** The answer once stored (or found a duplicate), when the provider needs another than 202/200 JSON. */
  acknowledge?(headers: HeaderReader): Response | undefined;
  /** Says where the key comes from, for the missing_key message. */
  readonly keyName: string;
}

export function requireHeader(headers: HeaderReader, name: string): string {
  const value = headers.get(name);
  if (value === null || value === '') throw new WebhookRejected('missing_signature', `the ${name} header is missing`);
  return value;
}

/** A Unix timestamp in seconds, as providers send it; anything else is a bad signature. */
/** A header carrying the signed Unix time: its text as sent (part of what is signed) and its value in seconds. */
export function requireTimestamp(headers: HeaderReader, name: string, label = name): { text: string; seconds: number } {
  const text = requireHeader(headers, name);
  return { text, seconds: parseSeconds(text, label) };
}

export function parseSeconds(text: string, header: string): number {
  if (!/^\d{1,12}$/.test(text)) throw new WebhookRejected('bad_signature', `the ${header} timestamp is not a Unix time in seconds`);
  return Number(text);
}

/**
 * The replay window. Checked after the signature, so `stale_timestamp`
 * means an authentic delivery that is too old (a replay, or a clock far
 * off), never a forgery. Both directions count: a timestamp far in the
 * future would keep a captured delivery replayable for that long.
 */
export function checkFresh(timestampSeconds: number, now: number, toleranceSeconds: number): void {
  const skew = Math.abs(now / 1000 - timestampSeconds);
  if (skew > toleranceSeconds) {
    throw new WebhookRejected('stale_timestamp', `the signed timestamp is ${Math.round(skew)}s away from now; the tolerance is ${toleranceSeconds}s`);
  }
}

export function badSignature(): WebhookRejected {
  return new WebhookRejected('bad_signature', 'the signature does not match the body');
}

/** A string field of a JSON object body, or undefined. */
export function stringField(payload: unknown, name: string): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const value = (payload as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
