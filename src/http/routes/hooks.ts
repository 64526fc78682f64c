/**
 * `POST /hooks/:inbox/:source`: signed webhook ingestion. The order is the
 * point: inbox id and source are checked, the body is read within the
 * limit, the signature is verified on those raw bytes, and only then is
 * anything parsed or stored. Every refusal stores nothing.
 */
import { Hono } from 'hono';
import { fromStoreError, HttpError } from '../http-error.js';
import { ingestEvent, type HttpContext } from '../http-context.js';
import { parseJson, readRequestBody } from '../read-body.js';
import { WebhookRejected } from '../webhooks/index.js';

export function hookRoutes(ctx: HttpContext): Hono {
  const app = new Hono();

  app.post('/:inbox/:source', async (c) => {
    const sourceName = c.req.param('source');
    const source = ctx.sources.get(sourceName);
    try {
      const inbox = ctx.store.inbox(c.req.param('inbox'));
      if (source === undefined) throw new HttpError(404, 'unknown_source', `no source named ${JSON.stringify(sourceName)} is configured`);
      const verifier = source.verifier(inbox.id);
      const headers = c.req.raw.headers;
      const body = await readRequestBody(c, ctx.maxBodyBytes);
      try {
        verifier.verify(body, headers, ctx.now());
      } catch (error) {
        if (error instanceof WebhookRejected) throw new HttpError(401, error.reason, error.message);
        throw error;
      }
      const payload = verifier.decode === undefined ? parseJson(body) : verifier.decode(body, headers);
      const reply = verifier.handshake?.(payload);
      if (reply !== undefined) return c.json(reply, 200);
      const sourceId = verifier.key(headers, payload);
      if (sourceId === undefined) throw new HttpError(400, 'missing_key', `the delivery has no unique id: ${verifier.keyName} is missing`);
      const ack = await ingestEvent(ctx, inbox, { source: sourceName, sourceId, payload });
      return verifier.acknowledge?.(headers) ?? ack;
    } catch (error) {
      const refusal = error instanceof HttpError ? error : fromStoreError(error);
      if (refusal !== null && refusal.status < 500) {
        // Unknown source names stay out of the label: a path segment anyone can vary must not grow the metrics.
        ctx.metrics.rejectedSignatures.inc({ source: source === undefined ? '(unknown)' : sourceName, reason: refusal.code });
        ctx.logger.info({ source: sourceName, reason: refusal.code }, 'webhook refused: %s', refusal.message);
      }
      throw error;
    }
  });

  return app;
}
