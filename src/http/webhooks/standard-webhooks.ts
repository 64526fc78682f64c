/**
 * Standard Webhooks (Svix and others): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature: v1,<base64> [v1,<base64>…]`, the HMAC of
 * `<id>.<timestamp>.<body>` keyed with the base64 bytes after `whsec_`.
 * The key is the id, which the signature covers, so unlike GitHub's
 * delivery id it cannot be changed to smuggle a replay past the dedupe.
 *
 * Svix sends the same three headers named `svix-id`, `svix-timestamp` and
 * `svix-signature` unless an account renames them, and the `svix` library's
 * verifier reads `svix-*` first, then `webhook-*`; so does this one.
 */
import { VigilError } from '../../errors.js';
import { hmacSha256, sameBytes } from '../../crypto.js';
import { headerBytes, singleHeaderValue, type HeaderReader } from '../header-values.js';
import { badSignature, checkFresh, parseSeconds, WebhookRejected, type WebhookVerifier } from './verifier.js';

/** The signing key; a secret that decodes to nothing is a config error at startup, not a 401 on every delivery. */
export function standardWebhooksKey(secret: string): Buffer {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(base64, 'base64');
  if (key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    throw new VigilError('invalid_options', 'a Standard Webhooks secret is "whsec_" followed by base64');
  }
  return key;
}

type Part = 'id' | 'timestamp' | 'signature';

/**
 * One of the three headers, under either name: `svix-<part>` first, as the
 * `svix` library reads them, then `webhook-<part>`. Null when neither is sent.
 *
 * Both names with different values is refused rather than resolved: the
 * signature covers one of them, and the other is then text that someone on
 * the way added or changed. Whoever reads the delivery later by the other
 * name (a log, a second consumer behind us) would see an id or time that was
 * never signed, and the dedupe key must be the signed id. No sender writes
 * two different values, so refusing costs an honest delivery nothing.
 */
function readPart(headers: HeaderReader, part: Part): { name: string; value: string } | null {
  const svix = headers.get(`svix-${part}`);
  const standard = headers.get(`webhook-${part}`);
  const present = (value: string | null): value is string => value !== null && value !== '';
  if (present(svix) && present(standard) && svix !== standard) {
    throw new WebhookRejected('bad_signature', `the svix-${part} and webhook-${part} headers disagree; send one of them, or the same value in both`);
  }
  if (present(svix)) return { name: `svix-${part}`, value: svix };
  if (present(standard)) return { name: `webhook-${part}`, value: standard };
  return null;
}

function requirePart(headers: HeaderReader, part: Part): { name: string; value: string } {
  const found = readPart(headers, part);
  if (found === null) throw new WebhookRejected('missing_signature', `the webhook-${part} header (or svix-${part}) is missing`);
  return found;
}

export function standardWebhooksVerifier(secret: string, toleranceSeconds: number): WebhookVerifier {
  const key = standardWebhooksKey(secret);
  return {
    keyName: 'the webhook-id (or svix-id) header',
    verify(body, headers, now) {
      const id = requirePart(headers, 'id').value;
      const timestamp = requirePart(headers, 'timestamp');
      const header = requirePart(headers, 'signature').value;
      const seconds = parseSeconds(timestamp.value, timestamp.name);
      // Signed over the bytes sent: an id with non-ASCII characters must not be re-encoded first.
      const expected = hmacSha256(key, headerBytes(`${id}.${timestamp.value}.`), body);
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
      // The same name the signature was checked under, so the dedupe key is always the signed id.
      const found = readPart(headers, 'id');
      return found === null ? undefined : singleHeaderValue(headers, found.name);
    },
  };
}
