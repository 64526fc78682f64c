/**
 * Header values used as keys (a delivery id, an Idempotency-Key), checked
 * before use. HTTP carries header values as bytes, and Node hands them over
 * one character per byte (latin1): a UTF-8 id "lieferung-ä" arrives as
 * "lieferung-Ã¤". It is turned back into the text that was sent, so the key
 * stored is the key the sender knows; bytes that are not UTF-8 are refused
 * rather than stored as something else. A header sent twice reaches us
 * joined as "a, b", which is neither id: a value with a comma is refused,
 * since no provider's ids have one.
 */
import { HttpError } from './http-error.js';

/**
 * What the routes and verifiers read of a request's headers: one value by
 * name, joined with ", " when sent more than once, null when missing. A web
 * Headers has it; so does the reader over Node's raw headers, which costs a
 * tenth of building a Headers for each delivery.
 */
export type HeaderReader = Pick<Headers, 'get'>;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The one value of header `name` as the sender wrote it, or undefined when it is missing or empty. */
export function singleHeaderValue(headers: HeaderReader, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.includes(',')) {
    throw new HttpError(400, 'invalid_header', `the ${name} header must hold one id; it was sent more than once, or holds a list`);
  }
  return headerText(raw, name);
}

/** A header value's bytes read as UTF-8 (see the module comment). */
export function headerText(raw: string, name: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(raw)) return raw;
  try {
    return utf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    throw new HttpError(400, 'invalid_header', `the ${name} header is not valid UTF-8`);
  }
}

/** The bytes a header value was sent as: what a signature over it was computed on. */
export function headerBytes(raw: string): Buffer {
  return Buffer.from(raw, 'latin1');
}
