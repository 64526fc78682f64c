/**
 * Slack v0: `X-Slack-Signature: v0=<hex HMAC of "v0:<ts>:<body>">` with
 * `X-Slack-Request-Timestamp`. The key is the Events API `event_id` (Slack
 * retries with the same id). Slack's `url_verification` handshake is
 * answered with its challenge and stored nowhere: it is not an event.
 */
import { badSignature, checkFresh, fromHex, hmacSha256, parseSeconds, requireHeader, sameBytes, stringField, type WebhookVerifier } from './verifier.js';

export function slackVerifier(secret: string, toleranceSeconds: number): WebhookVerifier {
  return {
    keyName: 'the event_id in the body',
    verify(body, headers, now) {
      const header = requireHeader(headers, 'x-slack-signature');
      const timestamp = requireHeader(headers, 'x-slack-request-timestamp');
      const seconds = parseSeconds(timestamp, 'X-Slack-Request-Timestamp');
      const given = header.startsWith('v0=') ? fromHex(header.slice('v0='.length)) : null;
      if (given === null || !sameBytes(hmacSha256(secret, `v0:${timestamp}:`, body), given)) throw badSignature();
      checkFresh(seconds, now, toleranceSeconds);
    },
    key(_headers, payload) {
      return stringField(payload, 'event_id');
    },
    handshake(payload) {
      if (stringField(payload, 'type') !== 'url_verification') return undefined;
      return { challenge: stringField(payload, 'challenge') ?? '' };
    },
  };
}
