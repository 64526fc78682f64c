/**
 * The page shell every dashboard page shares. Everything it loads comes from
 * this server (no CDN), and the Content-Security-Policy allows nothing else:
 * no inline script, no inline style, so markup smuggled into a payload or an
 * agent's message can only ever be shown as text (`html` escapes it anyway).
 */
import { html, toHtmlString, type Html } from '../http/html.js';

export const DASHBOARD_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export interface PageOptions {
  title: string;
  /** Signed in: the nav shows sign-out, which needs the CSRF token. */
  csrf?: string;
  /** A one-line result of the last action, announced to screen readers. */
  notice?: { kind: 'ok' | 'warn' | 'error'; text: string } | null;
  /** Poll this page and swap its [data-live] parts (the dashboard's live updates). */
  live?: boolean;
}

export function page(options: PageOptions, body: Html): string {
  const { title, csrf, notice, live = false } = options;
  return toHtmlString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Vigil</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body${live ? html` data-live-poll="1500"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Main">
<a class="brand" href="/">Vigil</a>
<a href="/">Inboxes</a>
</nav>
${csrf === undefined ? '' : html`<form method="post" action="/logout" class="signout"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`}
</header>
<main id="main">
<div id="notice" role="status" aria-live="polite">${notice ? html`<p class="notice ${notice.kind}">${notice.text}</p>` : ''}</div>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`);
}

/** A confirmation step without script: the action's button sits behind a disclosure. */
export function confirmAction(options: { label: string; question: string | Html; action: string; csrf: string; fields?: Record<string, string>; danger?: boolean }): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<details class="confirm">
<summary>${options.label}</summary>
<form method="post" action="${options.action}">
<p>${options.question}</p>
<input type="hidden" name="csrf" value="${options.csrf}">
${fields}
<button type="submit" class="${options.danger ? 'danger' : 'primary'}">Yes, ${options.label.toLowerCase()}</button>
</form>
</details>`;
}
