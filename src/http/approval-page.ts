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

export function confirmPage(options: { asked: string; approvalId: string; inboxId: string; expiresAt: number; formAction: string }): string {
  return page(
    'Approve?',
    html`<p>Your agent (inbox <code>${options.inboxId}</code>) asks for approval <code>${options.approvalId}</code>:</p>
<p class="asked">${options.asked}</p>
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
