/**
 * The ledger of side effects over the bearer-token API (contract/effects.ts):
 * `GET /inboxes/<id>/effects` lists the calls a crash left unknown (`?all=1`:
 * every call), and `POST /inboxes/<id>/effects/<key>` with
 * `{"state": "confirmed" | "failed"}` settles an unknown one, recorded as an
 * operator action; one that is not unknown is 409 not_unknown, nothing changed.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { HttpError } from '../http-error.js';
import { written, type HttpContext } from '../http-context.js';
import { parseJson, readRequestBody } from '../read-body.js';

export function effectRoutes(app: Hono, ctx: HttpContext, auth: MiddlewareHandler): void {
  app.get('/:inbox/effects', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const all = c.req.query('all');
    if (all !== undefined && all !== '1') throw new HttpError(400, 'invalid_query', 'all is 1 (every call in the ledger) or absent (the unknown ones)');
    return c.json({ effects: await inbox.effects({ which: all === '1' ? 'all' : 'unknown', limit: 1000 }) }, 200);
  });

  app.post('/:inbox/effects/:key', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const key = c.req.param('key');
    const body = parseJson(await readRequestBody(c, ctx.maxBodyBytes));
    const state = typeof body === 'object' && body !== null ? (body as { state?: unknown }).state : undefined;
    if (state !== 'confirmed' && state !== 'failed') throw new HttpError(400, 'invalid_state', 'the body must be {"state": "confirmed"} or {"state": "failed"}');
    await written(ctx, inbox.id, inbox.settleEffect(key, state));
    await written(ctx, inbox.id, inbox.recordAction({ actor: 'api', action: `settle effect ${state}`, target: key, result: `settled ${state}` }));
    return c.json({ settled: state }, 200);
  });
}
