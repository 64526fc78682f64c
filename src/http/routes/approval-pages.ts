/**
 * Signed one-tap approval links: `GET /a/:inbox/:id?exp&sig` shows what is
 * asked with Yes/No buttons, `POST` (same URL, form field `answer`) answers
 * and shows the outcome that stands. A link past its `exp` only ever shows
 * "expired"; before it, the store decides (R8), so a link cannot outlive
 * the approval either. These pages answer people, so errors are HTML too.
 */
import { Hono, type Context } from 'hono';
import type { ApprovalOutcome, Inbox } from '../../store/contract.js';
import { describeAction, verifyApprovalLink, type ApprovalLink } from '../approval-links.js';
import { confirmPage, errorPage, exactAction, outcomePage, PAGE_HEADERS } from '../approval-page.js';
import { fromStoreError, HttpError } from '../http-error.js';
import { answerApproval, noteFailure, requestFacts, type HttpContext } from '../http-context.js';
import { readRequestBody } from '../read-body.js';

/** A form with one field needs no more, whatever maxBodyBytes allows. */
const MAX_FORM_BYTES = 4096;

type Standing = Exclude<ApprovalOutcome, 'unknown'>;

export function approvalPageRoutes(ctx: HttpContext): Hono {
  const app = new Hono();

  app.onError((error, c) => {
    if (noteFailure(ctx, requestFacts(c), error) === 'gone') return c.html(errorPage('Not sent', 'The answer did not arrive whole; tap again.'), 400, PAGE_HEADERS);
    const refusal = error instanceof HttpError ? error : fromStoreError(error);
    if (refusal === null) {
      ctx.logger.error({ err: error, ...requestFacts(c) }, 'approval page failed');
      return c.html(errorPage('Something went wrong', 'The request could not be completed. Try the link again later.'), 500, PAGE_HEADERS);
    }
    return c.html(errorPage(titleFor(refusal), refusal.message), refusal.status, { ...PAGE_HEADERS, ...refusal.headers });
  });

  app.get('/:inbox/:id', async (c) => {
    const link = checkLink(ctx, c);
    const inbox = ctx.store.inbox(link.inboxId);
    const answered = await standing(inbox, link.approvalId);
    const asked = link.summary ?? answered?.asked ?? `approval ${link.approvalId}`;
    if (answered !== null) return c.html(outcomePage({ outcome: answered.outcome, asked, justAnswered: false }), 200, PAGE_HEADERS);
    if (ctx.now() >= link.expiresAt) return c.html(outcomePage({ outcome: 'expired', asked, justAnswered: false }), 200, PAGE_HEADERS);
    const formAction = new URL(c.req.url).pathname + new URL(c.req.url).search;
    // The exact input that will run, from the store: the summary in the link is only the agent's words for it.
    const approval = await inbox.getApproval(link.approvalId);
    const exact = approval === null ? null : exactAction(approval.action);
    return c.html(confirmPage({ asked, approvalId: link.approvalId, inboxId: link.inboxId, expiresAt: link.expiresAt, formAction, exact }), 200, PAGE_HEADERS);
  });

  app.post('/:inbox/:id', async (c) => {
    const link = checkLink(ctx, c);
    const inbox = ctx.store.inbox(link.inboxId);
    const form = new URLSearchParams((await readRequestBody(c, Math.min(MAX_FORM_BYTES, ctx.maxBodyBytes))).toString('utf8'));
    const answer = form.get('answer');
    if (answer !== 'yes' && answer !== 'no') throw new HttpError(400, 'invalid_answer', 'The answer must be yes or no.');
    if (ctx.now() >= link.expiresAt) {
      // The link has lapsed: it answers nothing, and says what stands.
      const answered = await standing(inbox, link.approvalId);
      const asked = link.summary ?? answered?.asked ?? `approval ${link.approvalId}`;
      return c.html(outcomePage({ outcome: answered?.outcome ?? 'expired', asked, justAnswered: false }), 200, PAGE_HEADERS);
    }
    const outcome = await answerApproval(ctx, inbox.id, link.approvalId, answer);
    const asked = link.summary ?? (await standing(inbox, link.approvalId))?.asked ?? `approval ${link.approvalId}`;
    return c.html(outcomePage({ outcome, asked, justAnswered: outcome === answer }), 200, PAGE_HEADERS);
  });

  return app;
}

/** The link from the URL, or 403: a bad or missing signature is a link we never made. */
function checkLink(ctx: HttpContext, c: Context): ApprovalLink {
  if (ctx.linkSecret === '') throw new HttpError(403, 'links_disabled', 'Approval links are disabled on this server: set "linkSecret" or "token" in its config.');
  const exp = c.req.query('exp') ?? '';
  const sig = c.req.query('sig') ?? '';
  const summary = c.req.query('q');
  const link: ApprovalLink = { inboxId: c.req.param('inbox') ?? '', approvalId: c.req.param('id') ?? '', expiresAt: Number(exp) };
  if (summary !== undefined) link.summary = summary;
  if (!/^\d{1,16}$/.test(exp) || !Number.isSafeInteger(link.expiresAt) || !verifyApprovalLink(ctx.linkSecret, link, sig)) {
    throw new HttpError(403, 'bad_link', 'This approval link is not valid. Use the link exactly as you received it.');
  }
  return link;
}

/** The answer stored for this approval, if any, and what it was about. */
async function standing(inbox: Inbox, approvalId: string): Promise<{ outcome: Standing; asked: string } | null> {
  const event = await inbox.getEvent('approval', approvalId);
  if (event === null) return null;
  const payload = event.payload as { answer?: unknown; action?: unknown } | null;
  const outcome = payload?.answer;
  if (outcome !== 'yes' && outcome !== 'no' && outcome !== 'expired') return null;
  return { outcome, asked: describeAction(payload?.action) };
}

function titleFor(error: HttpError): string {
  if (error.status === 403) return 'Link not valid';
  if (error.status === 404) return 'Not found';
  if (error.status === 503) return 'Try again shortly';
  return 'Cannot answer';
}
