/**
 * The inbox page's settings and failed messages, over HTTP, written once
 * for any store (run by dashboard-http.test.ts on SQLite and
 * dashboard.postgres.test.ts on PostgreSQL): the settings as they stand,
 * the form that changes only what the operator changed, an invalid value
 * as a notice naming the field with nothing changed, the record of each
 * change; the messages a channel did not take, and their redrive per
 * channel. The browser test (browser-settings.test.ts) drives the same form.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import type { TestApp, useHttpApps } from '../http/http-harness.js';
import { csrfOf, get, post, signIn } from './dashboard-suite.js';

const unescape = (text: string): string => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The fields a browser would send with the form posting to `action`, as the page rendered them. */
function formFields(body: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action.replace(/[/.]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</form>`).exec(body);
  if (form === null) throw new Error(`no form posting to ${action} on the page`);
  const fields: Record<string, string> = {};
  for (const input of (form[1] as string).matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(input[1] as string)?.[1];
    if (name !== undefined) fields[unescape(name)] = unescape(/value="([^"]*)"/.exec(input[1] as string)?.[1] ?? '');
  }
  return fields;
}

/** The page's notice text, or ''. */
async function noticeAfter(t: TestApp, response: Response, cookie: string): Promise<string> {
  expect(response.status).toBe(303);
  const page = await get(t, response.headers.get('location') as string, cookie);
  return unescape(/<div id="notice"[^>]*>([\s\S]*?)<\/div>/.exec(page.body)?.[1]?.replace(/<[^>]+>/g, '') ?? '');
}

/** Two messages held, then a dispatch whose channels did not take them: Slack had no address, email refused one. */
async function failedMessages(store: Store, inboxId: string): Promise<void> {
  const inbox = store.inbox(inboxId);
  await inbox.ingest({ source: 'test', sourceId: 'x' });
  const gen = (await inbox.acquire('w')) as number;
  const batch = await inbox.claimBatch('w', gen);
  await inbox.finish('w', gen, batch.map((e) => e.id), { messages: ['Your order shipped.', 'Refund <b>sent</b>.'] });
  await inbox.release('w', gen);
  const sent = await inbox.dispatch((_body, messages) => ({
    failures: [
      { messageIds: messages.map((m) => m.id), channel: 'slack', kind: 'undeliverable', error: `inbox ${inboxId} has no contacts.slack: set it, then redrive` },
      { messageIds: [messages[1]!.id], channel: 'email', kind: 'rejected', error: 'smtp 550: mailbox unavailable' },
    ],
  }));
  expect(sent).toBe(2);
}

export function dashboardSettingsSuite(apps: ReturnType<typeof useHttpApps>): void {
  describe('dashboard: an inbox\'s settings', () => {
    it("the operator sets the person's time zone and budget on the form; a spent budget shows as paused for spend until when", async () => {
      const t = await apps.make();
      const inbox = t.store.inbox('ana');
      await inbox.updateSettings({ contacts: { slack: 'D0ANA' } });
      const cookie = await signIn(t);
      const fields = formFields((await get(t, '/inbox/ana', cookie)).body, '/inbox/ana/settings');
      expect(fields).toMatchObject({ timeZone: '', 'budget.costPerDayUsd': '' });
      const saved = await post(t, '/inbox/ana/settings', cookie, { ...fields, timeZone: 'Europe/Berlin', 'budget.costPerDayUsd': '0.5', 'budget.tokensPerDay': '1000' });
      expect(await noticeAfter(t, saved, cookie)).toContain('Saved');
      expect(await inbox.settings()).toEqual({ timeZone: 'Europe/Berlin', contacts: { slack: 'D0ANA' }, budget: { tokensPerDay: 1_000, costPerDayUsd: 0.5 } });
      let page = await get(t, '/inbox/ana', cookie);
      expect(unescape(page.body.replace(/<[^>]+>/g, ''))).toContain('Budget left: $0.50 today · 1000 tokens today');

      const bad = await post(t, '/inbox/ana/settings', cookie, { ...formFields(page.body, '/inbox/ana/settings'), 'budget.costPerDayUsd': '-1' });
      expect(await noticeAfter(t, bad, cookie)).toContain('budget.costPerDayUsd');
      expect((await inbox.settings()).budget).toEqual({ tokensPerDay: 1_000, costPerDayUsd: 0.5 });

      await inbox.ingest({ source: 'test', sourceId: 'x' });
      const run = (await inbox.acquireAndClaim('w'))!;
      await inbox.finish('w', run.gen, run.events.map((e) => e.id), { usage: { inputTokens: 10, outputTokens: 1, costUsd: 0.6 } });
      page = await get(t, '/inbox/ana', cookie);
      expect(unescape(page.body.replace(/<[^>]+>/g, ''))).toMatch(/Paused for spend until .*: the day's budget is spent/);
    });

    it('shows the contacts, the pacing (quiet now, until when) and the debounce; an inbox with only settings has a page', async () => {
      const t = await apps.make();
      // The fake clock is 1970-01-12 13:46:40 UTC: 14:46 in Berlin, inside these quiet hours.
      await t.store.inbox('alice').updateSettings({
        contacts: { slack: 'D0ALICE', email: 'alice@example.com' },
        outbox: { gapMs: 60_000, quietHours: { from: '14:00', to: '15:00', timeZone: 'Europe/Berlin' }, dailyLimit: 3 },
        wake: { debounceMs: 2_000, maxWaitMs: 20_000 },
      });
      const cookie = await signIn(t);
      const page = await get(t, '/inbox/alice', cookie);
      expect(page.status).toBe(200);
      const settings = unescape(/<div data-live id="settings">([\s\S]*?)<details/.exec(page.body)?.[1]?.replace(/<[^>]+>/g, '') ?? '');
      expect(settings).toContain('slack: D0ALICE · email: alice@example.com');
      expect(settings).toContain('1m gap between paced sends; at most 3 paced sends a day (Europe/Berlin)');
      expect(settings).toContain('quiet hours 14:00–15:00 Europe/Berlin (quiet now, until in 13m');
      expect(settings).toContain('ready once the newest event is 2s old, or the oldest 20s old');
      expect(formFields(page.body, '/inbox/alice/settings')).toMatchObject({
        'contacts.slack': 'D0ALICE',
        'was:contacts.slack': 'D0ALICE',
        'outbox.gapMs': '60000',
        'outbox.quietHours.timeZone': 'Europe/Berlin',
        'wake.maxWaitMs': '20000',
      });

      await t.store.inbox('bob').updateSettings({});
      const bare = await get(t, '/inbox/bob', cookie);
      expect(bare.status).toBe(404); // an empty patch leaves nothing to show
      await t.store.inbox('carol').updateSettings({ contacts: { email: 'carol@example.com' } });
      const carol = await get(t, '/inbox/carol', cookie);
      expect(carol.status).toBe(200);
      expect(carol.body).toContain('no quiet hours');
      expect(carol.body).toContain('no debounce');
    });

    it('saves only what the operator changed, records it without the address, and leaves a change made meanwhile alone', async () => {
      const t = await apps.make();
      const inbox = t.store.inbox('alice');
      await inbox.updateSettings({ contacts: { slack: 'D0OLD' }, outbox: { gapMs: 3_600_000 } });
      const cookie = await signIn(t);
      const fields = formFields((await get(t, '/inbox/alice', cookie)).body, '/inbox/alice/settings');
      // While the form is open, the person sets a debounce through the agent.
      await inbox.updateSettings({ wake: { debounceMs: 1_500 } });

      const saved = await post(t, '/inbox/alice/settings', cookie, {
        ...fields,
        'contacts.slack': 'D0NEW',
        'new-contact.channel': 'email',
        'new-contact.address': 'alice@example.com',
        'outbox.gapMs': '',
        'outbox.quietHours.from': '22:00',
        'outbox.quietHours.to': '07:00',
        'outbox.quietHours.timeZone': 'Europe/Berlin',
      });
      expect(await noticeAfter(t, saved, cookie)).toContain('Saved: the outbox and the workers follow the new settings from now on.');
      expect(await inbox.settings()).toEqual({
        contacts: { slack: 'D0NEW', email: 'alice@example.com' },
        outbox: { quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' } },
        wake: { debounceMs: 1_500 },
      });
      const [record] = await t.store.view('alice').actions();
      expect(record).toMatchObject({
        action: 'change settings',
        target: 'settings',
        result: 'contacts.slack set, contacts.email set, outbox.quietHours = 22:00-07:00 Europe/Berlin, outbox.gapMs removed',
      });
      expect(record!.actor).toMatch(/^dashboard:[0-9a-f]{12}$/);
      const logged = JSON.stringify(t.logs());
      expect(logged).toContain('operator action: change settings settings');
      expect(logged).not.toContain('alice@example.com');
      expect(logged).not.toContain('D0NEW');

      // The same form again, unchanged: nothing to save.
      const again = formFields((await get(t, '/inbox/alice', cookie)).body, '/inbox/alice/settings');
      expect(await noticeAfter(t, await post(t, '/inbox/alice/settings', cookie, again), cookie)).toContain('Nothing changed: the form had no changes.');
      // Emptying a contact and all three quiet-hours fields removes them.
      const removed = await post(t, '/inbox/alice/settings', cookie, {
        ...again,
        'contacts.slack': '',
        'outbox.quietHours.from': '',
        'outbox.quietHours.to': '',
        'outbox.quietHours.timeZone': '',
      });
      expect(removed.headers.get('location')).toBe('/inbox/alice?notice=settings-saved');
      expect(await inbox.settings()).toEqual({ contacts: { email: 'alice@example.com' }, wake: { debounceMs: 1_500 } });
    });

    it("shows the inbox's usage against its quotas, red and saying 429 when full; the form sets its own limits (operator-only)", async () => {
      const t = await apps.make({ limits: { pendingEventsPerInbox: 1, pendingBytesPerInbox: 1_000, eventsPerMinutePerInbox: 50 } });
      const inbox = t.store.inbox('alice');
      await inbox.ingest({ source: 'test', sourceId: 'x', payload: { n: 1 } });
      const cookie = await signIn(t);
      const page = await get(t, '/inbox/alice', cookie);
      const quotas = unescape(/<dt>Quotas<\/dt><dd>([\s\S]*?)<\/dd>/.exec(page.body)?.[1]?.replace(/<[^>]+>/g, '') ?? '');
      expect(quotas).toContain('pending events 1 of 1 · pending bytes 7 of 1000 · events from outside this minute 0 of 50');
      expect(quotas).toContain('full: deliveries are refused (429 inbox_full)');
      expect(page.body).toMatch(/<span class="alert">pending events 1 of 1<\/span>/);

      const fields = formFields(page.body, '/inbox/alice/settings');
      expect(fields).toMatchObject({ 'limits.pendingEventsPerInbox': '', 'was:limits.pendingEventsPerInbox': '' });
      const saved = await post(t, '/inbox/alice/settings', cookie, { ...fields, 'limits.pendingEventsPerInbox': '100' });
      expect(await noticeAfter(t, saved, cookie)).toContain('Saved');
      expect(await inbox.settings()).toEqual({ limits: { pendingEventsPerInbox: 100 } });
      const after = unescape((await get(t, '/inbox/alice', cookie)).body.replace(/<[^>]+>/g, ''));
      expect(after).toContain('pending events 1 of 100 (its own)');
      expect(after).not.toContain('full: deliveries are refused');
    });

    it('an invalid value is a notice naming the field, and nothing changes', async () => {
      const t = await apps.make();
      const inbox = t.store.inbox('alice');
      const before = { contacts: { slack: 'D0ALICE' }, outbox: { gapMs: 1_000 }, wake: { debounceMs: 1_000 } };
      await inbox.updateSettings(before);
      const cookie = await signIn(t);
      const fields = formFields((await get(t, '/inbox/alice', cookie)).body, '/inbox/alice/settings');
      const quiet = { 'outbox.quietHours.from': '22:00', 'outbox.quietHours.to': '07:00', 'outbox.quietHours.timeZone': 'Europe/Berlin' };
      const cases: [Record<string, string>, string][] = [
        [{ ...quiet, 'outbox.quietHours.timeZone': 'Mars/Olympus' }, 'Not saved: outbox.quietHours.timeZone must be an IANA time zone, such as Europe/Berlin. Nothing changed.'],
        [{ ...quiet, 'outbox.quietHours.from': '25:00' }, 'Not saved: outbox.quietHours.from must be a time of day, HH:MM'],
        [{ ...quiet, 'outbox.quietHours.to': '' }, 'Not saved: outbox.quietHours.to must be a time of day'],
        [{ ...quiet, 'outbox.quietHours.to': '22:00' }, 'Not saved: outbox.quietHours need a start and a different end'],
        [{ 'outbox.gapMs': '-5' }, 'Not saved: outbox.gapMs must be a whole number of milliseconds, 0 or more.'],
        [{ 'outbox.dailyLimit': '1.5' }, 'Not saved: outbox.dailyLimit must be a whole number, 0 or more.'],
        [{ 'wake.debounceMs': 'soon' }, 'Not saved: wake.debounceMs must be a whole number of milliseconds'],
        [{ 'wake.maxWaitMs': '500' }, 'Not saved: wake.maxWaitMs must be a whole number of milliseconds, at least the debounce'],
        [{ 'contacts.slack': 'x'.repeat(1_001) }, 'Not saved: contacts.slack must be an address of at most 1,000 characters.'],
        [{ 'new-contact.channel': 'Teams', 'new-contact.address': 'someone' }, 'Not saved: contacts must each be a channel name'],
        [{ 'new-contact.address': 'someone' }, 'Not saved: contacts must each be a channel name'],
        [{ 'new-contact.channel': 'console', 'new-contact.address': '' }, 'Not saved: contacts.console must be an address'],
      ];
      for (const [change, notice] of cases) {
        const response = await post(t, '/inbox/alice/settings', cookie, { ...fields, ...change });
        expect(await noticeAfter(t, response, cookie), JSON.stringify(change).slice(0, 80)).toContain(notice);
        expect(await inbox.settings()).toEqual(before);
      }
      const records = await t.store.view('alice').actions({ limit: 50 });
      expect(records).toHaveLength(cases.length);
      expect(records[records.length - 1]).toMatchObject({ action: 'change settings', result: 'refused: outbox.quietHours.timeZone is not valid (nothing changed)' });
      // A contact for a channel nobody configured is named as "contacts": its name came from the request.
      expect(records.find((r) => r.result.includes('Teams'))).toBeUndefined();
    });

    it('needs the CSRF token and a form from this site; a field the form does not have is a 400; nothing changes', async () => {
      const t = await apps.make();
      const inbox = t.store.inbox('alice');
      await inbox.updateSettings({ outbox: { gapMs: 1_000 } });
      const cookie = await signIn(t);
      const fields = formFields((await get(t, '/inbox/alice', cookie)).body, '/inbox/alice/settings');
      expect((await post(t, '/inbox/alice/settings', cookie, { ...fields, csrf: 'forged', 'outbox.gapMs': '0' })).status).toBe(403);
      const crossSite = await t.app.hono.request('/inbox/alice/settings', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie },
        body: new URLSearchParams({ ...fields, 'outbox.gapMs': '0' }).toString(),
      });
      expect(crossSite.status).toBe(403);
      const unknown = await post(t, '/inbox/alice/settings', cookie, { ...fields, 'outbox.quietHour': '22:00' });
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toContain('The settings form has no field &quot;outbox.quietHour&quot;');
      expect((await post(t, '/inbox/alice/settings', '', { ...fields, 'outbox.gapMs': '0' })).status).toBe(401);
      expect(await inbox.settings()).toEqual({ outbox: { gapMs: 1_000 } });
      expect(await t.store.view('alice').actions()).toEqual([]);
    });

    it('a crafted notice link names only settings the form has, and contacts only of channels that exist', async () => {
      const t = await apps.make();
      await t.store.inbox('alice').updateSettings({ contacts: { slack: 'D0ALICE' } });
      const cookie = await signIn(t);
      const notice = async (ref: string): Promise<string> =>
        unescape(/<div id="notice"[^>]*>([\s\S]*?)<\/div>/.exec((await get(t, `/inbox/alice?notice=settings-invalid&ref=${encodeURIComponent(ref)}`, cookie)).body)?.[1] ?? '');
      expect(await notice('contacts.call-5550100-now')).toContain('Not saved: contacts must each be');
      expect(await notice('contacts.call-5550100-now')).not.toContain('call');
      expect(await notice('Your account is locked')).toContain('Not saved: a setting is not valid. Nothing changed.');
      expect(await notice('contacts.slack')).toContain('Not saved: contacts.slack must be an address');
      expect(await notice('contacts.console')).toContain('Not saved: contacts.console must be an address'); // a configured channel
      expect(await notice('wake.maxWaitMs')).toContain('Not saved: wake.maxWaitMs must be');
    });
  });

  describe('dashboard: messages a channel did not take', () => {
    it('shows each with its channel, kind and reason, and says so in the counts', async () => {
      const t = await apps.make();
      await failedMessages(t.store, 'alice');
      const cookie = await signIn(t);
      const page = await get(t, '/inbox/alice', cookie);
      const outbox = /<div data-live id="outbox">([\s\S]*?)<\/section>/.exec(page.body)?.[1] ?? '';
      expect(outbox).toContain('3 failed messages');
      expect(outbox).toMatch(/<td>slack<\/td><td><span class="badge undeliverable">undeliverable<\/span><\/td><td>inbox alice has no contacts.slack: set it, then redrive<\/td>/);
      expect(outbox).toMatch(/<td>email<\/td><td><span class="badge rejected">rejected<\/span><\/td><td>smtp 550: mailbox unavailable<\/td>/);
      expect(outbox).toContain('Refund &lt;b&gt;sent&lt;/b&gt;.');
      expect(outbox).toContain('<summary>Redrive slack</summary>');
      expect(outbox).toContain('<summary>Redrive email</summary>');
      expect(outbox).toContain('This inbox still has no contacts.slack: set it first, or they fail again.');
      expect(outbox).not.toContain('Redrive every channel');
      expect(page.body).toContain('2 undeliverable · 1 rejected');
    });

    it('redrives one channel: its messages are held again for it alone, the dispatcher is told, the action recorded', async () => {
      const t = await apps.make();
      await failedMessages(t.store, 'alice');
      const inbox = t.store.inbox('alice');
      await inbox.updateSettings({ contacts: { slack: 'D0ALICE' } });
      const cookie = await signIn(t);
      const csrf = csrfOf((await get(t, '/inbox/alice', cookie)).body);
      const hints: string[] = [];
      const stop = await t.store.subscribe((id, kind) => void hints.push(`${id}:${kind}`));
      const redriven = await post(t, '/inbox/alice/redrive-outbox', cookie, { csrf, channel: 'slack' });
      expect(redriven.headers.get('location')).toBe('/inbox/alice?notice=outbox-redriven&ref=2');
      expect(await noticeAfter(t, redriven, cookie)).toContain('Redriven: 2 messages are held again for their channel');
      await expect.poll(() => hints).toContain('alice:outbox');
      await stop();
      expect((await inbox.stats()).outbox).toMatchObject({ held: 2, undeliverable: 0, rejected: 1 });
      const sentTo: (string | null)[] = [];
      t.clock.advance(3_600_000); // the store's gap
      expect(await inbox.dispatch((_body, messages) => void sentTo.push(...messages.map((m) => m.channel)))).toBe(2);
      expect(sentTo).toEqual(['slack', 'slack']);
      expect((await t.store.view('alice').actions())[0]).toMatchObject({ action: 'redrive outbox', target: 'channel slack', result: '2 messages held again' });

      const again = await post(t, '/inbox/alice/redrive-outbox', cookie, { csrf, channel: 'slack' });
      expect(await noticeAfter(t, again, cookie)).toContain('Nothing to redrive');
      expect((await post(t, '/inbox/alice/redrive-outbox', cookie, { csrf: 'forged', channel: 'email' })).status).toBe(403);
      expect((await post(t, '/inbox/alice/redrive-outbox', cookie, { csrf, channel: 'x'.repeat(65) })).status).toBe(400);
      expect((await inbox.stats()).outbox.rejected).toBe(1);
      // Without a channel ("Redrive every channel", offered when some failures are not listed): all of them.
      const all = await post(t, '/inbox/alice/redrive-outbox', cookie, { csrf });
      expect(all.headers.get('location')).toBe('/inbox/alice?notice=outbox-redriven&ref=1');
      expect((await inbox.stats()).outbox).toMatchObject({ held: 1, undeliverable: 0, rejected: 0 });
      expect((await t.store.view('alice').actions())[0]).toMatchObject({ action: 'redrive outbox', target: 'every channel', result: '1 message held again' });
    });

    it('drops one channel\'s failed messages: never sent to it, no longer listed or counted, the action recorded', async () => {
      const t = await apps.make();
      await failedMessages(t.store, 'alice');
      const inbox = t.store.inbox('alice');
      const cookie = await signIn(t);
      const page = await get(t, '/inbox/alice', cookie);
      expect(page.body).toContain('Drop slack');
      const csrf = csrfOf(page.body);
      const dropped = await post(t, '/inbox/alice/drop-outbox', cookie, { csrf, channel: 'slack' });
      expect(dropped.headers.get('location')).toBe('/inbox/alice?notice=outbox-dropped&ref=2');
      expect(await noticeAfter(t, dropped, cookie)).toContain('Dropped: 2 messages are no longer kept for their channel');
      expect((await inbox.stats()).outbox).toMatchObject({ held: 0, undeliverable: 0, rejected: 1 });
      expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(0);
      expect((await t.store.view('alice').actions())[0]).toMatchObject({ action: 'drop outbox', target: 'channel slack', result: '2 messages dropped' });

      expect(await noticeAfter(t, await post(t, '/inbox/alice/drop-outbox', cookie, { csrf, channel: 'slack' }), cookie)).toContain('Nothing to drop');
      expect((await post(t, '/inbox/alice/drop-outbox', cookie, { csrf: 'forged', channel: 'email' })).status).toBe(403);
      expect((await post(t, '/inbox/alice/drop-outbox', cookie, { csrf })).status).toBe(400); // a drop names its channel
      expect((await inbox.stats()).outbox.rejected).toBe(1);
    });

    it('offers "Redrive every channel" when more failures exist than the page lists', async () => {
      const t = await apps.make();
      const inbox = t.store.inbox('alice');
      await inbox.ingest({ source: 'test', sourceId: 'x' });
      const gen = (await inbox.acquire('w')) as number;
      const batch = await inbox.claimBatch('w', gen);
      await inbox.finish('w', gen, batch.map((e) => e.id), { messages: Array.from({ length: 25 }, (_, i) => `update ${i}`) });
      await inbox.dispatch((_body, messages) => ({ failures: [{ messageIds: messages.map((m) => m.id), channel: 'slack', kind: 'undeliverable', error: 'no contacts.slack' }] }));
      const cookie = await signIn(t);
      const outbox = /<div data-live id="outbox">([\s\S]*?)<\/section>/.exec((await get(t, '/inbox/alice', cookie)).body)?.[1] ?? '';
      expect(outbox).toContain('25 failed messages');
      expect(outbox).toContain('Newest first; 5 older not shown');
      expect(outbox).toContain('<summary>Redrive every channel</summary>');
    });
  });
}
