/**
 * Stripe: `Stripe-Signature: t=<seconds>,v1=<hex>[,v1=<hex>…]`, the HMAC of
 * `<t>.<body>` keyed with the whole `whsec_…` string. Several v1 entries
 * appear while a secret is being rolled; any one matching is enough. The
 * key is the event's `id` from the body (Stripe resends the same id).
 */
import { fromHex, hmacSha256, sameBytes } from '../../crypto.js';
import { badSignature, checkFresh, parseSeconds, requireHeader, stringField, type WebhookVerifier } from './verifier.js';

export function stripeVerifier(secret: string, toleranceSeconds: number): WebhookVerifier {
  return {
    keyName: 'the event id ("id") in the body',
    verify(body, headers, now) {
      const header = requireHeader(headers, 'stripe-signature');
      let timestamp: string | undefined;
      const signatures: string[] = [];
      for (const part of header.split(',')) {
        const at = part.indexOf('=');
        if (at < 0) continue;
        const name = part.slice(0, at).trim();
        const value = part.slice(at + 1).trim();
        if (name === 't') timestamp = value;
        else if (name === 'v1') signatures.push(value);
      }
      if (timestamp === undefined || signatures.length === 0) throw badSignature();
      const seconds = parseSeconds(timestamp, 'Stripe-Signature');
      const expected = hmacSha256(secret, `${timestamp}.`, body);
      // Compare with every candidate (no early exit), so timing does not say which one matched.
      let matched = false;
      for (const signature of signatures) {
        const given = fromHex(signature);
        if (given !== null && sameBytes(expected, given)) matched = true;
      }
      if (!matched) throw badSignature();
      checkFresh(seconds, now, toleranceSeconds);
    },
    key(_headers, payload) {
      return stringField(payload, 'id');
    },
  };
}
