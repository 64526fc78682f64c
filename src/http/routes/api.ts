/**
 * The bearer-token API under /inboxes: user messages (deduped on the
 * Idempotency-Key header, so a client retrying after a timeout sends the
 * message once), answers to approvals, each inbox's settings (read, and
 * changed with a JSON merge patch: 200 with the settings after it, or 400
 * invalid_settings naming the field, nothing changed), and the deletion of
 * an inbox (204; 409 inbox_busy while a worker holds it), and its usage
 * against its quotas (stats), and its model usage by day or month (usage).
 */
import { Hono } from 'hono';
import { apiAuth } from '../bearer-auth.js';
import { HttpError } from '../http-error.js';
import { singleHeaderValue } from '../header-values.js';
import { answerApproval, ingestEvent, type HttpContext } from '../http-context.js';
import { parseJson, readRequestBody } from '../read-body.js';
import { effectiveLimits } from '../../store/index.js';
import { effectRoutes } from './effects.js';

/** The source of messages a person sends through the API. */
export const CHAT_SOURCE = 'chat';

export function apiRoutes(ctx: HttpContext): Hono {
  const app = new Hono();
  // Per route, not use('*'): a path that does not exist is a 404, never a token check that counts.
  const auth = apiAuth(ctx.token, ctx.lockout, ctx.logger);

  app.post('/:inbox/messages', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const key = singleHeaderValue(c.req.raw.headers, 'idempotency-key');
    if (key === undefined || key === '') {
      throw new HttpError(400, 'missing_key', 'the Idempotency-Key header is required: it makes a retried request a duplicate, not a second message');
    }
    const body = parseJson(await readRequestBody(c, ctx.maxBodyBytes));
    const text = typeof body === 'object' && body !== null ? (body as { text?: unknown }).text : undefined;
    if (typeof text !== 'string' || text.trim() === '') {
      throw new HttpError(400, 'invalid_message', 'the body must be {"text": "<a non-empty string>"}');
    }
    return ingestEvent(ctx, inbox, { source: CHAT_SOURCE, sourceId: key, payload: { text } });
  });

  app.post('/:inbox/approvals/:id', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const id = c.req.param('id');
    const body = parseJson(await readRequestBody(c, ctx.maxBodyBytes));
    const answer = typeof body === 'object' && body !== null ? (body as { answer?: unknown }).answer : undefined;
    if (answer !== 'yes' && answer !== 'no') throw new HttpError(400, 'invalid_answer', 'the body must be {"answer": "yes"} or {"answer": "no"}');
    const outcome = await answerApproval(ctx, inbox.id, id, answer);
    return c.json({ outcome }, 200);
  });

  // What the inbox holds against its quotas, and the limits that apply to it (the service's, or its own setting's).
  app.get('/:inbox/stats', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const [stats, settings] = await Promise.all([inbox.stats(), inbox.settings()]);
    return c.json({ ...stats, limits: effectiveLimits(ctx.limits, settings) }, 200);
  });

  // Model usage by the inbox's local day or month (inbox.usage): ?from=<ms>&to=<ms>&by=day|month; a bad query is 400 naming the field.
  app.get('/:inbox/usage', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const { from, to, by } = c.req.query();
    const usage = await inbox.usage({ from: queryNumber(from), to: queryNumber(to), ...(by === undefined ? {} : { by: by as 'day' }) });
    return c.json({ usage }, 200);
  });

  app.get('/:inbox/settings', auth, async (c) => c.json(await ctx.store.inbox(c.req.param('inbox')).settings(), 200));

  app.patch('/:inbox/settings', auth, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('inbox'));
    const patch = parseJson(await readRequestBody(c, ctx.maxBodyBytes));
    return c.json(await inbox.updateSettings(patch), 200);
  });

  // A deletion request: everything of the inbox, its dedupe keys included. 404 when it holds nothing.
  app.delete('/:inbox', auth, async (c) => {
    const inboxId = c.req.param('inbox');
    if (!(await ctx.store.deleteInbox(inboxId))) throw new HttpError(404, 'not_found', `inbox ${inboxId} holds nothing`);
    return c.body(null, 204);
  });

  effectRoutes(app, ctx, auth);
  return app;
}

/** A query parameter as a number when it is one; otherwise as given, for the store's check to name. */
function queryNumber(value: string | undefined): number {
  return (value !== undefined && /^-?\d+$/.test(value) ? Number(value) : value) as number;
}
