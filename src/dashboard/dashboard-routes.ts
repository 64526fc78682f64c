/**
 * The operator's dashboard, served at `/` by `vigil serve`: an overview of
 * every inbox, a page per inbox, and the few actions that fix a bad night
 * (redrive a dead event, answer an approval, release a stuck lease, send
 * held messages now, change an inbox's settings, redrive the messages a
 * channel did not take). Same token as the API, typed into a login form once.
 * Every action is confirmed, checked against a CSRF token, and recorded in
 * the inbox (`recordAction`) and the log. Pages are HTML, errors included.
 */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { html } from '../http/html.js';
import { isVigilError } from '../errors.js';
import { fromStoreError, HttpError } from '../http/http-error.js';
import { answerApproval, noteFailure, requestFacts, written, type HttpContext } from '../http/http-context.js';
import type { EventStatus, Inbox } from '../store/contract.js';
import { effectiveLimits } from '../store/index.js';
import { answerResult, redriveResult } from '../runtime/operator-actions.js';
import { dashboardAsset } from './assets.js';
import { EVENT_STATUSES, inboxPage, type EventFilter } from './inbox-page.js';
import { DASHBOARD_HEADERS, page } from './layout.js';
import { LoginKeys } from './login-cookie.js';
import { checkedSetting, noticeFor, type NoticeCode } from './notices.js';
import { overviewPage } from './overview-page.js';
import { writeFailures } from './write-failures.js';
import { describeEdit, settingsPatch } from './settings-form.js';
import { requireSession, sameOriginForms, signInRoutes, type Vars } from './sign-in.js';

const PAGE_SIZE = 50;
const EVENTS_PER_PAGE = 25;
/** Work due longer than this with no worker on it makes an inbox "stuck". */
export const STUCK_AFTER_MS = 60_000;
const ACTIVITY_BUCKET_MS = 3_600_000;
const ACTIVITY_BUCKETS = 24;

export function dashboardRoutes(ctx: HttpContext): Hono<Vars> {
  const app = new Hono<Vars>();
  const keys = ctx.token === undefined ? null : new LoginKeys(ctx.token);

  app.onError((error, c) => {
    if (noteFailure(ctx, requestFacts(c), error) === 'gone') return c.html(errorPage('Not sent', 'The form did not arrive whole.'), 400, DASHBOARD_HEADERS);
    // Hono's csrf middleware refuses a form from another site with a bare 403: say it as a page.
    const crossSite = error instanceof HTTPException && error.status === 403;
    const refusal = crossSite
      ? new HttpError(403, 'cross_site_form', 'This form came from another site (or the browser did not say where it came from); open the dashboard and try again there.')
      : error instanceof HttpError
        ? error
        : fromStoreError(error);
    if (refusal === null) {
      ctx.logger.error({ err: error, ...requestFacts(c) }, 'dashboard request failed');
      return c.html(errorPage('Something went wrong', 'The page could not be built. The error is in the service log.'), 500, DASHBOARD_HEADERS);
    }
    return c.html(errorPage(titleFor(refusal.status), refusal.message), refusal.status, { ...DASHBOARD_HEADERS, ...refusal.headers });
  });

  app.get('/assets/:name', (c) => {
    const asset = dashboardAsset(c.req.param('name'));
    if (asset === null) throw new HttpError(404, 'not_found', 'No such file.');
    return c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
  });

  app.route('/', signInRoutes(ctx, keys));
  const signedIn = requireSession(ctx, keys);
  const forms = sameOriginForms(ctx);

  const formOf = (c: Context<Vars>): URLSearchParams => c.get('form');
  const csrfOf = (c: Context<Vars>): string => (keys as LoginKeys).csrfToken(c.get('session'));

  app.get('/', signedIn, async (c) => {
    const search = c.req.query('q') ?? '';
    if (search.length > 128) throw new HttpError(400, 'invalid_search', 'Search for at most 128 characters.');
    const after = c.req.query('after') ?? null;
    if (after !== null) ctx.store.inbox(after); // an id, or a clear 400
    const attention = c.req.query('attention') === '1';
    const list = await ctx.store.listInboxes({ search, attention, after: after ?? undefined, limit: PAGE_SIZE, stuckAfterMs: STUCK_AFTER_MS });
    return c.html(overviewPage(list, { search, attention, after, stuckAfterMs: STUCK_AFTER_MS }, { csrf: csrfOf(c), notice: writeFailures(ctx.writes.failingInboxes()) }), 200, DASHBOARD_HEADERS);
  });

  app.get('/inbox/:id', signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const view = ctx.store.view(inbox.id);
    const filter = eventFilter(c);
    const [{ now }, stats] = await Promise.all([ctx.store.nextWake(), inbox.stats()]);
    const [events, timers, approvals, outbox, session, memory, activity, actions, summary, settings, unknownEffects] = await Promise.all([
      inbox.events({ status: filter.status ?? undefined, source: filter.source === '' ? undefined : filter.source, newestFirst: true, afterId: filter.before ?? undefined, limit: EVENTS_PER_PAGE + 1 }),
      inbox.timers(),
      view.approvals({ limit: 50 }),
      view.outbox({ limit: 20 }),
      inbox.getSession(),
      inbox.getMemory(),
      view.activity({ since: Math.floor(now / ACTIVITY_BUCKET_MS) * ACTIVITY_BUCKET_MS - (ACTIVITY_BUCKETS - 1) * ACTIVITY_BUCKET_MS, bucketMs: ACTIVITY_BUCKET_MS }),
      view.actions({ limit: 20 }),
      ctx.store.listInboxes({ after: justBefore(inbox.id), limit: 1 }),
      inbox.settings(),
      inbox.effects({ which: 'unknown', limit: 50 }),
    ]);
    // Settings alone make an inbox worth showing: an operator may set a person's contact before their first event.
    if (isEmpty(stats) && timers.length === 0 && approvals.length === 0 && actions.length === 0 && Object.keys(settings).length === 0) {
      throw new HttpError(404, 'unknown_inbox', `There is no inbox "${inbox.id}": nothing has been stored under that id.`);
    }
    const readySince = summary?.inboxes.find((row) => row.id === inbox.id)?.readySince ?? null;
    const more = events.length > EVENTS_PER_PAGE ? (events[EVENTS_PER_PAGE - 1]?.id ?? null) : null;
    const notice = noticeFor(c.req.query('notice'), c.req.query('ref'), {
      approvals: new Set(approvals.map((approval) => approval.id)),
      channels: knownChannels(settings.contacts),
    });
    return c.html(
      inboxPage(
        {
          id: inbox.id,
          now,
          stats,
          readySince,
          events: events.slice(0, EVENTS_PER_PAGE),
          moreBefore: more,
          filter,
          timers,
          approvals,
          outbox,
          session,
          memory,
          activity,
          activityBucketMs: ACTIVITY_BUCKET_MS,
          actions,
          stuckAfterMs: STUCK_AFTER_MS,
          settings,
          limits: effectiveLimits(ctx.limits, settings),
          channels: ctx.channels,
          unknownEffects,
        },
        { csrf: csrfOf(c), notice },
      ),
      200,
      DASHBOARD_HEADERS,
    );
  });

  /** Channel names a contact may be for: the configured ones and the inbox's own contacts. */
  const knownChannels = (contacts: Record<string, string> | undefined): Set<string> => new Set([...ctx.channels, ...Object.keys(contacts ?? {})]);

  /**
   * Runs an action, records it, and sends the browser back to the inbox with what happened.
   * `ref` is the one id the notice may name (notices.ts checks it again when the page is shown); `run` may name another.
   */
  async function act(
    c: Context<Vars>,
    inbox: Inbox,
    action: string,
    target: string,
    defaultRef: string | null,
    run: () => Promise<{ result: string; notice: NoticeCode; ref?: string | null }>,
  ): Promise<Response> {
    const { result, notice, ref = defaultRef } = await run();
    const actor = `dashboard:${c.get('session').id}`;
    await written(ctx, inbox.id, inbox.recordAction({ actor, action, target, result }));
    ctx.logger.info({ inboxId: inbox.id, actor, action, target, result }, 'operator action: %s %s → %s', action, target, result);
    return c.redirect(`/inbox/${encodeURIComponent(inbox.id)}?notice=${notice}${ref === null ? '' : `&ref=${encodeURIComponent(ref)}`}`, 303);
  }

  app.post('/inbox/:id/redrive', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const eventId = positiveInt(formOf(c).get('event'), 'event');
    return act(c, inbox, 'redrive', `event ${eventId}`, String(eventId), async () => {
      const done = await inbox.redrive(eventId);
      return { result: redriveResult(done), notice: done ? 'redriven' : 'not-redriven' };
    });
  });

  app.post('/inbox/:id/answer', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const form = formOf(c);
    const approvalId = form.get('approval') ?? '';
    const answer = form.get('answer');
    if (approvalId === '') throw new HttpError(400, 'invalid_approval', 'Which approval? The form has no approval id.');
    if (answer !== 'yes' && answer !== 'no') throw new HttpError(400, 'invalid_answer', 'The answer must be yes or no.');
    return act(c, inbox, `answer ${answer}`, approvalId, approvalId, async () => {
      const outcome = await answerApproval(ctx, inbox.id, approvalId, answer);
      const result = answerResult(answer, outcome);
      if (outcome === answer) return { result, notice: answer === 'yes' ? 'approved' : 'refused' };
      if (outcome === 'expired') return { result, notice: 'approval-expired' };
      return { result, notice: outcome === 'yes' ? 'already-yes' : 'already-no' };
    });
  });

  app.post('/inbox/:id/release', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const form = formOf(c);
    const holder = form.get('holder') ?? '';
    const gen = positiveInt(form.get('gen'), 'gen');
    return act(c, inbox, 'release lease', `${holder} gen ${gen}`, String(gen), async () => {
      const released = await inbox.release(holder, gen);
      return released ? { result: 'released', notice: 'released' } : { result: 'not held by that holder any more', notice: 'not-released' };
    });
  });

  app.post('/inbox/:id/send-now', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    return act(c, inbox, 'send held now', 'outbox', null, async () => {
      const count = await inbox.expediteOutbox();
      return { result: `${count} ${count === 1 ? 'message' : 'messages'} to send now`, notice: count > 0 ? 'sending' : 'nothing-held' };
    });
  });

  app.post('/inbox/:id/settings', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    return act(c, inbox, 'change settings', 'settings', null, async () => {
      try {
        const edit = settingsPatch(formOf(c));
        if (edit.changes.length === 0) return { result: 'nothing to change', notice: 'settings-unchanged' };
        await inbox.updateSettings(edit.patch);
        return { result: describeEdit(edit), notice: 'settings-saved' };
      } catch (error) {
        if (!isVigilError(error, 'invalid_settings')) throw error;
        // Named as the notice will name it: a field the form has, never text from the request.
        const field = checkedSetting(error.field ?? '', knownChannels((await inbox.settings()).contacts));
        return { result: `refused: ${field ?? 'a setting'} is not valid (nothing changed)`, notice: 'settings-invalid', ref: field };
      }
    });
  });

  app.post('/inbox/:id/redrive-outbox', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const channel = formOf(c).get('channel') ?? '';
    if (channel.length > 64) throw new HttpError(400, 'invalid_channel', 'A channel name is at most 64 characters.');
    return act(c, inbox, 'redrive outbox', channel === '' ? 'every channel' : `channel ${channel}`, null, async () => {
      const count = await inbox.redriveOutbox(channel === '' ? {} : { channel });
      if (count === 0) return { result: 'nothing to redrive', notice: 'outbox-not-redriven' };
      return { result: `${count} ${count === 1 ? 'message' : 'messages'} held again`, notice: 'outbox-redriven', ref: String(count) };
    });
  });

  app.post('/inbox/:id/drop-outbox', forms, signedIn, async (c) => {
    const inbox = ctx.store.inbox(c.req.param('id'));
    const channel = formOf(c).get('channel') ?? '';
    if (channel === '' || channel.length > 64) throw new HttpError(400, 'invalid_channel', 'Name the channel whose failed messages to drop (at most 64 characters).');
    return act(c, inbox, 'drop outbox', `channel ${channel}`, null, async () => {
      const count = await inbox.dropOutbox({ channel });
      if (count === 0) return { result: 'nothing to drop', notice: 'outbox-not-dropped' };
      return { result: `${count} ${count === 1 ? 'message' : 'messages'} dropped`, notice: 'outbox-dropped', ref: String(count) };
    });
  });

  return app;
}

/**
 * A string that sorts right before `id` with no valid inbox id between
 * them, so `listInboxes({ after: justBefore(id), limit: 1 })` is `id`'s own
 * row when it exists. Ids use [A-Za-z0-9._-] only (R11), all below '~':
 * lower the last character by one and append '~'. (A search for the id
 * would not do: '0alice' contains 'alice' and sorts before it.)
 */
export function justBefore(id: string): string {
  return `${id.slice(0, -1)}${String.fromCharCode(id.charCodeAt(id.length - 1) - 1)}~`;
}

function eventFilter(c: Context): EventFilter {
  const status = c.req.query('status') ?? '';
  if (status !== '' && !EVENT_STATUSES.includes(status as EventStatus)) {
    throw new HttpError(400, 'invalid_status', `Status must be one of ${EVENT_STATUSES.join(', ')}.`);
  }
  const source = c.req.query('source') ?? '';
  if (source.length > 200) throw new HttpError(400, 'invalid_source', 'A source is at most 200 characters.');
  const before = c.req.query('before');
  return { status: status === '' ? null : (status as EventStatus), source, before: before === undefined || before === '' ? null : positiveInt(before, 'before') };
}

function positiveInt(value: string | null | undefined, name: string): number {
  if (value === null || value === undefined || !/^[1-9]\d{0,15}$/.test(value)) throw new HttpError(400, 'invalid_argument', `"${name}" must be a positive whole number.`);
  return Number(value);
}

function isEmpty(stats: { events: Record<string, number>; outbox: { held: number; sent: number }; lease: unknown }): boolean {
  return Object.values(stats.events).every((n) => n === 0) && stats.outbox.held === 0 && stats.outbox.sent === 0 && stats.lease === null;
}

function titleFor(status: number): string {
  if (status === 404) return 'Not found';
  if (status === 401) return 'Signed out';
  if (status === 403) return 'Not allowed';
  if (status === 503) return 'The store is unavailable';
  return 'That did not work';
}

function errorPage(title: string, message: string): string {
  return page({ title }, html`<p class="notice error">${message}</p><p><a href="/">Back to the inboxes</a></p>`);
}

