/**
 * Signed webhook ingestion, two ways in (hooks-on-node.ts serves both):
 *   - `POST /hooks/:inbox/:source`: the inbox is in the path;
 *   - `POST /hooks/:source`: one URL for every user (a GitHub App, a Slack
 *     app); the inbox comes from the verified body (the source's
 *     `inbox.from`), or from the agent's `route()`.
 * The order is the point: the source (and an inbox in the path) are
 * checked, the body is read within the limit, the signature is verified on
 * those raw bytes, and only then is anything parsed, routed or stored.
 * Every refusal stores nothing, and is an event (`webhook:refused`) that
 * the metrics and the log hear.
 */
import { QuotaExceededError } from '../errors.js';
import type { Inbox } from '../store/contract.js';
import type { HeaderReader } from './header-values.js';
import { fromStoreError, HttpError } from './http-error.js';
import { ingestAck, type HttpContext, type JsonAnswer } from './http-context.js';
import { parseJson } from './read-body.js';
import { WebhookRejected, type WebhookSource } from './webhooks/index.js';
import { inboxFromAgent, inboxFromPayload } from './webhooks/route-inbox.js';

/** A delivery as the route reads it from the request. */
export interface Delivery {
  sourceName: string;
  inboxInPath: string | null;
  headers: HeaderReader;
  /** Every header, for the agent's route(): read only for a delivery it routes. */
  allHeaders(): Record<string, string>;
  /** The body, within the limit (413 body_too_large), or ClientWentAway. */
  readBody(maxBytes: number): Promise<Buffer>;
}

/** The answer: 202 stored or 200 duplicate (or a handshake's reply) in JSON, or the provider's own acknowledgment. */
export type DeliveryAnswer = JsonAnswer | Response;

/** Checks, verifies, parses and stores one delivery; throws what the error handler answers (errorAnswer). */
export async function receiveDelivery(ctx: HttpContext, delivery: Delivery): Promise<DeliveryAnswer> {
  const { sourceName, inboxInPath, headers } = delivery;
  const source = ctx.sources.get(sourceName);
  try {
    const inbox = inboxInPath === null ? null : ctx.store.inbox(inboxInPath);
    if (source === undefined) throw new HttpError(404, 'unknown_source', `no source named ${JSON.stringify(sourceName)} is configured`);
    if (inbox === null) checkRoutable(ctx, source);
    const verifier = source.verifier(inbox?.id ?? null);
    const body = await delivery.readBody(ctx.maxBodyBytes);
    try {
      verifier.verify(body, headers, ctx.now());
    } catch (error) {
      if (error instanceof WebhookRejected) throw new HttpError(401, error.reason, error.message);
      throw error;
    }
    const payload = verifier.decode === undefined ? parseJson(body) : verifier.decode(body, headers);
    const reply = verifier.handshake?.(payload);
    if (reply !== undefined) return { status: 200, json: reply };
    const target = inbox ?? (await routedInbox(ctx, source, payload, delivery));
    const sourceId = verifier.key(headers, payload);
    if (sourceId === undefined) throw new HttpError(400, 'missing_key', `the delivery has no unique id: ${verifier.keyName} is missing`);
    const ack = await ingestAck(ctx, target, { source: sourceName, sourceId, payload });
    return verifier.acknowledge?.(headers) ?? ack;
  } catch (error) {
    const refusal = error instanceof HttpError ? error : fromStoreError(error);
    // A quota's refusal is the store's event already (ingest:refused), counted and logged once there.
    if (refusal !== null && refusal.status < 500 && !(error instanceof QuotaExceededError)) {
      ctx.events.emit('webhook:refused', { source: sourceName, known: source !== undefined, reason: refusal.code, message: refusal.message });
    }
    throw error;
  }
}

/** A delivery without an inbox in its path needs a fixed secret and a way to find its inbox. */
function checkRoutable(ctx: HttpContext, source: WebhookSource): void {
  if (source.secretKind === 'per-inbox') {
    throw new HttpError(404, 'not_routed', `source ${source.name} has a secret per inbox: send its deliveries to POST /hooks/<inbox>/${source.name}`);
  }
  if (source.config.inbox === undefined && ctx.route === undefined) {
    throw new HttpError(404, 'not_routed', `source ${source.name} is not routed: give it "inbox": { "from": "<path in the body>" }, or send to POST /hooks/<inbox>/${source.name}`);
  }
}

/** The inbox a verified delivery to `POST /hooks/<source>` belongs to, or 422 unroutable. */
async function routedInbox(ctx: HttpContext, source: WebhookSource, payload: unknown, delivery: Delivery): Promise<Inbox> {
  const routing = source.config.inbox;
  let id: string | null;
  if (routing !== undefined) {
    id = inboxFromPayload(payload, routing);
    if (id === null) {
      throw new HttpError(422, 'unroutable', `the delivery names no inbox: no string or number at "${routing.from}" in the body that makes a valid inbox id${routing.prefix === '' ? '' : ` after "${routing.prefix}"`}`);
    }
  } else {
    try {
      id = await inboxFromAgent(ctx.route!, source.name, payload, delivery.allHeaders());
    } catch (error) {
      // The agent's code failed on this payload: the operator must see it, and the sender gets a 4xx (its input caused it).
      ctx.logger.error({ err: error, source: source.name }, "the agent's route() threw; the delivery is refused as unroutable");
      id = null;
    }
    if (id === null) throw new HttpError(422, 'unroutable', "the delivery names no inbox: the agent's route() gave none");
  }
  return ctx.store.inbox(id);
}
