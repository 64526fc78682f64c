/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, key
 * `X-GitHub-Delivery`. GitHub signs no timestamp, so there is no replay
 * window to enforce; a replay of the same delivery is a duplicate (R1).
 * The delivery id is not signed either: dedupe is against redelivery, not
 * against someone holding a captured body.
 *
 * A webhook's content type is the sender's choice, and GitHub's default is
 * the form (`application/x-www-form-urlencoded`): the delivery's JSON then
 * comes as the form's one field `payload`, and is stored as that JSON, as
 * if it had been sent as `application/json`. The signature is over the
 * form as sent, so it is checked before anything is decoded.
 */
import { fromHex, hmacSha256, sameBytes } from '../../crypto.js';
import { HttpError } from '../http-error.js';
import { isForm, parseForm, parseJson, parseJsonText } from '../read-body.js';
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
    decode(body, headers) {
      if (!isForm(headers)) return parseJson(body);
      const payload = parseForm(body).get('payload');
      if (payload === null) {
        throw new HttpError(400, 'bad_form', 'the form has no field "payload": GitHub sends the delivery\'s JSON in it (content type application/x-www-form-urlencoded)');
      }
      return parseJsonText(payload, 'the form field "payload"');
    },
    key(headers) {
      return singleHeaderValue(headers, 'x-github-delivery');
    },
  };
}
