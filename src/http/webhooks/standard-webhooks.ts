/**
 * Standard Webhooks (Svix and others): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature: v1,<base64> [v1,<base64>…]`, the HMAC of
 * `<id>.<timestamp>.<body>` keyed with the base64 bytes after `whsec_`.
 * The key is `webhook-id`, which the signature covers, so unlike GitHub's
 * delivery id it cannot be changed to smuggle a replay past the dedupe.
 */
import { VigilError } from '../../errors.js';
import { hmacSha256, sameBytes } from '../../crypto.js';
import { headerBytes, singleHeaderValue } from '../header-values.js';
import { badSignature, checkFresh, parseSeconds, requireHeader, type WebhookVerifier } from './verifier.js';

/** The signing key; a secret that decodes to nothing is a config error at startup, not a 401 on every delivery. */
export function standardWebhooksKey(secret: string): Buffer {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(base64, 'base64');
  if (key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    throw new VigilError('invalid_options', 'a Standard Webhooks secret is "whsec_" followed by base64');
  }
  return key;
}

export function standardWebhooksVerifier(secret: string, toleranceSeconds: number): WebhookVerifier {
  const key = standardWebhooksKey(secret);
  return {
    keyName: 'the webhook-id header',
    verify(body, headers, now) {
      const id = requireHeader(headers, 'webhook-id');
      const timestamp = requireHeader(headers, 'webhook-timestamp');
      const header = requireHeader(headers, 'webhook-signature');
      const seconds = parseSeconds(timestamp, 'webhook-timestamp');
      // Signed over the bytes sent: an id with non-ASCII characters must not be re-encoded first.
      const expected = hmacSha256(key, headerBytes(`${id}.${timestamp}.`), body);
      let matched = false;
      for (const entry of header.split(' ')) {
        const [version, signature] = entry.split(',', 2);
        if (version !== 'v1' || signature === undefined) continue;
        if (sameBytes(expected, Buffer.from(signature, 'base64'))) matched = true;
      }
      if (!matched) throw badSignature();
      checkFresh(seconds, now, toleranceSeconds);
    },
    key(headers) {
      return singleHeaderValue(headers, 'webhook-id');
    },
  };
}
