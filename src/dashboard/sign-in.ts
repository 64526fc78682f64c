/**
 * Signing in and out of the dashboard, and the guard every other page
 * passes: a session from the signed cookie, and on a POST the form's CSRF
 * token. Forms are also checked by Hono's csrf middleware (hono/csrf): a
 * browser says where a form came from (Sec-Fetch-Site, Origin), and one
 * from another site is refused before anything is read.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { logLockout } from '../http/bearer-auth.js';
import { html } from '../http/html.js';
import { HttpError } from '../http/http-error.js';
import type { HttpContext } from '../http/http-context.js';
import { readRequestBody } from '../http/read-body.js';
import { clientAddress } from '../http/wrong-token-lockout.js';
import { DASHBOARD_HEADERS, page } from './layout.js';
import { COOKIE_NAME, type DashboardSession, type LoginKeys } from './login-cookie.js';
import { signInNext } from './sign-in-next.js';

/** What the sign-in check leaves for the handlers: the session and, on a POST, its checked form. */
export type Vars = { Variables: { session: DashboardSession; form: URLSearchParams } };

/** A form with a few short fields needs no more. */
const MAX_FORM_BYTES = 8192;

/**
 * Forms only from this server's own pages: the browser's Sec-Fetch-Site
 * says same-origin, or its Origin is the address the request came to or the
 * configured publicUrl (behind a TLS proxy the two differ in scheme).
 */
export function sameOriginForms(ctx: HttpContext): MiddlewareHandler {
  return csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin || origin === ctx.publicOrigin });
}

export function signInRoutes(ctx: HttpContext, keys: LoginKeys | null): Hono<Vars> {
  const app = new Hono<Vars>();
  const forms = sameOriginForms(ctx);

  app.get('/login', (c) => {
    if (keys === null) throw dashboardOff();
    return c.html(loginPage(signInNext(c.req.query('next')), null), 200, DASHBOARD_HEADERS);
  });

  app.post('/login', forms, async (c) => {
    if (keys === null) throw dashboardOff();
    const form = await readForm(c);
    const next = signInNext(form.get('next') ?? undefined);
    const address = clientAddress(c);
    const token = form.get('token') ?? '';
    // An empty field is not a guess: it is not counted (as a request without a token is not, on the API).
    if (token === '') return c.html(loginPage(next, 'Type the token to sign in.'), 401, DASHBOARD_HEADERS);
    if (!keys.tokenMatches(token)) {
      // The right token is never refused (checked above this); only wrong ones meet the lockout.
      const lockedFor = ctx.lockout.lockedFor(address);
      if (lockedFor !== null) {
        return c.html(loginPage(next, 'Too many wrong tokens from here. Wait a minute, then try again.'), 429, {
          ...DASHBOARD_HEADERS,
          'Retry-After': String(lockedFor),
        });
      }
      if (ctx.lockout.failed(address)) logLockout(ctx.logger, address, 'dashboard');
      else ctx.logger.debug({ ip: address }, 'dashboard sign-in refused: wrong token');
      return c.html(loginPage(next, 'That token is not right.'), 401, DASHBOARD_HEADERS);
    }
    ctx.lockout.succeeded(address);
    const session = await keys.startSession(c, ctx.now());
    ctx.logger.info({ session: session.id, ip: address }, 'dashboard sign-in');
    return c.redirect(next, 303);
  });

  app.post('/logout', forms, requireSession(ctx, keys), async (c) => {
    // Ended in the store, not only in this browser: a copy of the cookie (or another instance) must not go on working.
    const session = c.get('session');
    await ctx.store.endSession(session.id, session.expiresAt);
    deleteCookie(c, COOKIE_NAME, { path: '/' });
    ctx.logger.info({ session: session.id, ip: clientAddress(c) }, 'dashboard sign-out');
    return c.redirect('/login', 303);
  });

  return app;
}

/**
 * Every page but the sign-in needs a signed-in session; a POST also needs
 * the session's CSRF token in its form. Per route, not `use('*')`: paths the
 * dashboard does not own keep the app's JSON 404.
 */
export function requireSession(ctx: HttpContext, keys: LoginKeys | null): MiddlewareHandler<Vars> {
  return async (c, next) => {
    if (keys === null) throw dashboardOff();
    const read = await keys.readSession(c, ctx.now());
    const session = read !== null && (await ctx.store.sessionEnded(read.id)) ? null : read;
    if (session === null) {
      if (c.req.method === 'GET') return c.redirect(`/login?next=${encodeURIComponent(c.req.path + new URL(c.req.url).search)}`, 303);
      throw new HttpError(401, 'unauthorized', 'Sign in again: your session has ended.');
    }
    c.set('session', session);
    if (c.req.method === 'POST') {
      const form = await readForm(c);
      if (!keys.csrfMatches(session, form.get('csrf'))) throw new HttpError(403, 'bad_csrf', 'This form is stale or came from another site; reload the page and try again.');
      c.set('form', form);
    }
    await next();
  };
}

async function readForm(c: Parameters<MiddlewareHandler>[0]): Promise<URLSearchParams> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) throw new HttpError(400, 'invalid_form', 'Send the form as application/x-www-form-urlencoded.');
  return new URLSearchParams((await readRequestBody(c, MAX_FORM_BYTES)).toString('utf8'));
}

export function dashboardOff(): HttpError {
  return new HttpError(403, 'dashboard_disabled', 'The dashboard is off: set "token" in the config to turn it on.');
}

function loginPage(next: string, error: string | null): string {
  return page(
    { title: 'Sign in', notice: error === null ? null : { kind: 'error', text: error } },
    html`<form method="post" action="/login" class="login">
<input type="hidden" name="next" value="${next}">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="muted">The token is the service's <code>token</code> setting.</p>`,
  );
}
