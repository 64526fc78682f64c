/**
 * Slack v0: `X-Slack-Signature: v0=<hex HMAC of "v0:<ts>:<body>">` with
 * `X-Slack-Request-Timestamp`, over whatever the body is. Three kinds of
 * delivery arrive signed this way:
 *   - Events API: JSON, keyed by `event_id` (Slack retries with the same
 *     id). Its `url_verification` handshake is answered with its challenge
 *     and stored nowhere: it is not an event.
 *   - Slash commands: a form (`command`, `text`, `user_id`, ...), stored as
 *     an object of its fields.
 *   - Interactivity (buttons, modals, shortcuts): a form whose one field
 *     `payload` is JSON, stored as that JSON.
 * A form delivery is keyed by its `trigger_id`, unique per invocation, and
 * answered 200 with an empty body: Slack takes that as the acknowledgment
 * and posts nothing (a body would be shown to the user as a message).
 */
import { isForm, parseForm, parseJson, parseJsonText } from '../read-body.js';
import { fromHex, hmacSha256, sameBytes } from '../../crypto.js';
import { badSignature, checkFresh, requireHeader, requireTimestamp, stringField, type WebhookVerifier } from './verifier.js';

export function slackVerifier(secret: string, toleranceSeconds: number): WebhookVerifier {
  return {
    keyName: 'the event_id (Events API) or trigger_id (slash commands, interactivity) in the body',
    verify(body, headers, now) {
      const header = requireHeader(headers, 'x-slack-signature');
      const timestamp = requireTimestamp(headers, 'x-slack-request-timestamp', 'X-Slack-Request-Timestamp');
      const given = header.startsWith('v0=') ? fromHex(header.slice('v0='.length)) : null;
      if (given === null || !sameBytes(hmacSha256(secret, `v0:${timestamp.text}:`, body), given)) throw badSignature();
      checkFresh(timestamp.seconds, now, toleranceSeconds);
    },
    decode(body, headers) {
      if (!isForm(headers)) return parseJson(body);
      const fields = parseForm(body);
      const interaction = fields.get('payload');
      if (interaction === null) return Object.fromEntries(fields);
      return parseJsonText(interaction, 'the form field "payload"');
    },
    key(_headers, payload) {
      return stringField(payload, 'event_id') ?? stringField(payload, 'trigger_id');
    },
    handshake(payload) {
      if (stringField(payload, 'type') !== 'url_verification') return undefined;
      return { challenge: stringField(payload, 'challenge') ?? '' };
    },
    acknowledge(headers) {
      return isForm(headers) ? new Response(null, { status: 200 }) : undefined;
    },
  };
}
