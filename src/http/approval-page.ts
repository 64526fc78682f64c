/**
 * The one-tap approval pages: a confirm page (GET never answers: chat apps
 * and mail scanners fetch links to preview them) and the outcome page.
 * Everything shown is escaped by `html`; the page loads nothing and cannot
 * be framed, so it cannot be dressed up to trick a tap.
 */
import { html, toHtmlString, type Html } from './html.js';

export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // The link's signature is in the URL: do not hand it to anyone as a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

function page(title: string, body: Html): string {
  return toHtmlString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; }
.exact { padding: .6rem; background: #f6f8fa; border-radius: .4rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .9rem; }
.asked { padding: 1rem; border: 1px solid #ccc; border-radius: .5rem; white-space: pre-wrap; overflow-wrap: anywhere; }
button { font-size: 1.1rem; padding: .6rem 1.6rem; margin-right: 1rem; border-radius: .4rem; border: 1px solid #888; cursor: pointer; }
button[value=yes] { background: #1a7f37; color: #fff; }
</style>
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`);
}

/** Long enough for any real tool input, short enough that a page stays a page: the rest is cut, and the page says so. */
export const MAX_EXACT_CHARS = 4_000;

/**
 * What will run if the answer is yes, from the approval's stored action
 * (not the link, whose summary the agent chose): a tool action's tool and
 * its exact input as JSON, any other action's JSON; null for a plain string,
 * which the summary already shows whole.
 */
export function exactAction(action: unknown): { tool: string | null; json: string } | null {
  if (typeof action === 'string' || action === undefined) return null;
  const record = typeof action === 'object' && action !== null && !Array.isArray(action) ? (action as Record<string, unknown>) : null;
  const isTool = record !== null && record.type === 'tool' && typeof record.tool === 'string';
  const json = JSON.stringify(isTool ? (record.input ?? null) : action, null, 2);
  const chars = Array.from(json);
  const shown = chars.length <= MAX_EXACT_CHARS ? json : `${chars.slice(0, MAX_EXACT_CHARS).join('')}\n… (cut: ${chars.length} characters in all)`;
  return { tool: isTool ? (record.tool as string) : null, json: shown };
}

function exactSection(exact: { tool: string | null; json: string } | null): Html | string {
  if (exact === null) return '';
  if (exact.tool === null) return html`<p>The request as stored:</p><pre class="exact">${exact.json}</pre>`;
  return html`<p>Yes runs the tool <code>${exact.tool}</code> with exactly this input:</p><pre class="exact">${exact.json}</pre>`;
}

export function confirmPage(options: {
  asked: string;
  approvalId: string;
  inboxId: string;
  expiresAt: number;
  formAction: string;
  /** The stored action, when the store has the approval (exactAction). */
  exact?: { tool: string | null; json: string } | null;
}): string {
  return page(
    'Approve?',
    html`<p>Your agent (inbox <code>${options.inboxId}</code>) asks for approval <code>${options.approvalId}</code>:</p>
<p class="asked">${options.asked}</p>
${exactSection(options.exact ?? null)}
<form method="post" action="${options.formAction}">
<button type="submit" name="answer" value="yes">Yes</button>
<button type="submit" name="answer" value="no">No</button>
</form>
<p><small>This request expires at ${new Date(options.expiresAt).toISOString()}.</small></p>`,
  );
}

/** What stands: an answer (given now or earlier) or the expiry. */
export function outcomePage(options: { outcome: 'yes' | 'no' | 'expired'; asked: string; justAnswered: boolean }): string {
  const { outcome, asked } = options;
  if (outcome === 'expired') {
    return page('Expired', html`<p>This approval request expired before it was answered; nothing was approved.</p><p class="asked">${asked}</p>`);
  }
  const title = options.justAnswered ? `Answered: ${outcome}` : `Already answered: ${outcome}`;
  return page(title, html`<p>The answer that stands is <strong>${outcome}</strong>.</p><p class="asked">${asked}</p>`);
}

export function errorPage(title: string, message: string): string {
  return page(title, html`<p>${message}</p>`);
}
