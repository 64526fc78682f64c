/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, key
 * `X-GitHub-Delivery`. GitHub signs no timestamp, so there is no replay
 * window to enforce; a replay of the same delivery is a duplicate (R1).
 * The delivery id is not signed either: dedupe is against redelivery, not
 * against someone holding a captured body.
 */
import { fromHex, hmacSha256, sameBytes } from '../../crypto.js';
import { singleHeaderValue } from '../header-values.js';
import { badSignature, requireHeader, type WebhookVerifier } from './verifier.js';

export function githubVerifier(secret: string): WebhookVerifier {
  return {
    keyName: 'the X-GitHub-Delivery header',
    verify(body, headers) {
      const header = requireHeader(headers, 'x-hub-signature-256');
      const given = header.startsWith('sha256=') ? fromHex(header.slice('sha256='.length)) : null;
      if (given === null || !sameBytes(hmacSha256(secret, body), given)) throw badSignature();
    },
    key(headers) {
      return singleHeaderValue(headers, 'x-github-delivery');
    },
  };
}
