/**
 * Generic HMAC: a configured header carries the hex HMAC-SHA256 of the raw
 * body (an optional `sha256=` prefix is accepted); another configured header
 * carries the delivery id. No timestamp is signed, so replay protection is
 * the dedupe on that id.
 */
import { fromHex, hmacSha256, sameBytes } from '../../crypto.js';
import { singleHeaderValue } from '../header-values.js';
import { badSignature, requireHeader, type WebhookVerifier } from './verifier.js';

export function hmacVerifier(secret: string, options: { signatureHeader: string; keyHeader: string }): WebhookVerifier {
  return {
    keyName: `the ${options.keyHeader} header`,
    verify(body, headers) {
      const header = requireHeader(headers, options.signatureHeader).trim();
      const given = fromHex(header.startsWith('sha256=') ? header.slice('sha256='.length) : header);
      if (given === null || !sameBytes(hmacSha256(secret, body), given)) throw badSignature();
    },
    key(headers) {
      return singleHeaderValue(headers, options.keyHeader);
    },
  };
}
