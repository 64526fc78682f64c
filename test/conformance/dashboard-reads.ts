/**
 * The dashboard's reads and operator actions: the overview (listInboxes),
 * an inbox's events, approvals, outbox and activity, "send now"
 * (expediteOutbox) and the record of what a person did. Read-only calls on
 * an inbox never written create nothing; bad arguments are invalid_argument
 * with nothing written.
 */
import { describe, expect, it } from 'vitest';
import type { Inbox, Store } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const TTL = 10_000;
const GAP = 60_000;
const STUCK = 60_000;

/** Runs every claimable event of the inbox in one run, with this outcome. */
async function runAll(inbox: Inbox, outcome?: Parameters<Inbox['finish']>[3]): Promise<number[]> {
  const gen = await lease(inbox, 'W');
  const batch = await inbox.claimBatch('W', gen);
  const ids = batch.map((e) => e.id);
  expect(await inbox.finish('W', gen, ids, outcome)).toBe(true);
  await inbox.release('W', gen);
  return ids;
}

/** Queues messages as a run with no events would. */
async function queue(inbox: Inbox, ...messages: string[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages })).toBe(true);
  await inbox.release('W', gen);
}

async function ids(store: Store, query?: Parameters<Store['listInboxes']>[0]): Promise<string[]> {
  return (await store.listInboxes(query)).inboxes.map((i) => i.id);
}

export function dashboardReads(target: StoreTarget): void {
  describe(`dashboard reads and operator actions (${target.name})`, () => {
    const open = useStore(target);

    describe('listInboxes', () => {
      it('pages through every inbox by id, with the total and the store clock', async () => {
        const { store, clock } = await open();
        for (const id of ['dave', 'alice', 'carol', 'bob', 'erin']) await store.inbox(id).ingest({ source: 's', sourceId: '1' });
        clock.set(T0 + 5);
        const first = await store.listInboxes({ limit: 2 });
        expect(first.inboxes.map((i) => i.id)).toEqual(['alice', 'bob']);
        expect(first).toMatchObject({ next: 'bob', total: 5, now: T0 + 5 });
        const second = await store.listInboxes({ limit: 2, after: first.next! });
        expect(second.inboxes.map((i) => i.id)).toEqual(['carol', 'dave']);
        expect(second).toMatchObject({ next: 'dave', total: 5 });
        const last = await store.listInboxes({ limit: 2, after: second.next! });
        expect(last.inboxes.map((i) => i.id)).toEqual(['erin']);
        expect(last).toMatchObject({ next: null, total: 5 });
        expect(await ids(store)).toEqual(['alice', 'bob', 'carol', 'dave', 'erin']);
        expect((await store.listInboxes({ limit: 5 })).next).toBeNull();
      });

      it('search keeps the ids that contain the text, and the total counts those only', async () => {
        const { store } = await open();
        for (const id of ['team-a', 'team-b', 'solo', 'a-team']) await store.inbox(id).ingest({ source: 's', sourceId: '1' });
        const found = await store.listInboxes({ search: 'team', limit: 2 });
        expect(found.inboxes.map((i) => i.id)).toEqual(['a-team', 'team-a']);
        expect(found).toMatchObject({ total: 3, next: 'team-a' });
        expect(await ids(store, { search: 'team', after: 'team-a' })).toEqual(['team-b']);
        expect(await ids(store, { search: 'nobody' })).toEqual([]);
        expect((await store.listInboxes({ search: 'nobody' })).total).toBe(0);
      });

      it('search ignores case: a person typing "team" finds Team-A, and "TEAM" finds team-b', async () => {
        const { store } = await open();
        for (const id of ['Team-A', 'team-b', 'solo']) await store.inbox(id).ingest({ source: 's', sourceId: '1' });
        expect(await ids(store, { search: 'team' })).toEqual(['Team-A', 'team-b']);
        expect(await ids(store, { search: 'TEAM' })).toEqual(['Team-A', 'team-b']);
        expect(await ids(store, { search: 'm-A' })).toEqual(['Team-A']);
        expect((await store.listInboxes({ search: 'tEaM' })).total).toBe(2);
      });

      it('summarises each inbox: counts by status, lease, next timer, held outbox, pending approvals', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, maxAttempts: 1 });
        const inbox = store.inbox('alice');
        await inbox.ingestMany(['a', 'b', 'c'].map((sourceId) => ({ source: 's', sourceId })));
        const gen = await lease(inbox, 'W');
        const [a, b] = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, [a!.id], { messages: ['one', 'two'] });
        await inbox.finish('W', gen, [b!.id], { error: 'poison', dead: true });
        await inbox.addTimer({ id: 'later', due: T0 + 50_000 });
        await inbox.addTimer({ id: 'sooner', due: T0 + 20_000, every: 1_000 });
        await inbox.requestApproval({ id: 'open', expiresInMs: 5_000, action: 'x' });
        await store.inbox('bob').addTimer({ id: 't', due: T0 + 1_000 });
        clock.advance(1);
        const { inboxes } = await store.listInboxes();
        expect(inboxes).toEqual([
          {
            id: 'alice',
            events: { pending: 0, running: 1, done: 1, dead: 1 },
            lease: { holder: 'W', gen, until: T0 + TTL },
            nextTimerAt: T0 + 20_000,
            outboxHeld: 2,
            approvalsPending: 1,
            readySince: null,
            unreadable: null,
          },
          {
            id: 'bob',
            events: { pending: 0, running: 0, done: 0, dead: 0 },
            lease: null,
            nextTimerAt: T0 + 1_000,
            outboxHeld: 0,
            approvalsPending: 0,
            readySince: null,
            unreadable: null,
          },
        ]);
      });

      it('readySince: when claimable events or due timers started waiting, null while a live lease holds them', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        clock.set(T0 + 7);
        await store.inbox('events').ingest({ source: 's', sourceId: '1' });
        await store.inbox('timer').addTimer({ id: 't', due: T0 + 100 });
        const held = store.inbox('leased');
        await lease(held, 'W');
        await held.ingest({ source: 's', sourceId: '1' });
        const summary = async (id: string) => (await store.listInboxes()).inboxes.find((i) => i.id === id)!;
        expect((await summary('events')).readySince).toBe(T0 + 7);
        expect((await summary('timer')).readySince).toBeNull();
        expect((await summary('leased')).readySince).toBeNull();
        clock.set(T0 + 100);
        expect((await summary('timer')).readySince).toBe(T0 + 100);
        // The lease taken at T0 + 7 holds the events until it lapses.
        clock.set(T0 + 7 + TTL);
        expect((await summary('leased')).readySince).toBeNull();
        clock.set(T0 + 7 + TTL + 5);
        expect((await summary('leased')).readySince).toBe(T0 + 7 + TTL + 1);
        await runAll(store.inbox('events'));
        expect((await summary('events')).readySince).toBeNull();
      });

      it('attention lists inboxes with dead events or work due longer than stuckAfterMs; needAttention counts them over all', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const dead = store.inbox('dead');
        await dead.ingest({ source: 's', sourceId: '1' });
        await runAll(dead, { error: 'poison', dead: true });
        await store.inbox('stuck').ingest({ source: 's', sourceId: '1' });
        clock.set(T0 + STUCK);
        await store.inbox('fresh').ingest({ source: 's', sourceId: '1' });
        const healthy = store.inbox('healthy');
        await healthy.ingest({ source: 's', sourceId: '1' });
        await runAll(healthy, { messages: ['done'] });
        await store.inbox('waiting').addTimer({ id: 't', due: T0 + 10 * STUCK });

        // Due for exactly stuckAfterMs: stuck. Due for less: not yet.
        const all = await store.listInboxes({ attention: true, stuckAfterMs: STUCK });
        expect(all.inboxes.map((i) => i.id)).toEqual(['dead', 'stuck']);
        expect(all).toMatchObject({ total: 2, needAttention: 2, next: null });
        expect(await ids(store, { attention: true, stuckAfterMs: STUCK + 1 })).toEqual(['dead']);
        expect(await ids(store, { attention: true, stuckAfterMs: 0 })).toEqual(['dead', 'fresh', 'stuck']);
        // The default is 60 s.
        expect(await ids(store, { attention: true })).toEqual(['dead', 'stuck']);
        // needAttention ignores search, paging and the filter; total follows them.
        const page = await store.listInboxes({ search: 'e', limit: 1 });
        expect(page).toMatchObject({ total: 3, needAttention: 2, next: 'dead' });
        expect(page.inboxes.map((i) => i.id)).toEqual(['dead']);
        expect(page.inboxes[0]!.events.dead).toBe(1);
        expect((await store.listInboxes({ attention: true, search: 'stu' })).inboxes.map((i) => i.id)).toEqual(['stuck']);

        // Redriven and handled, the dead inbox is fine again; the stuck one once it ran.
        const [deadEvent] = await dead.events({ status: 'dead' });
        expect(await dead.redrive(deadEvent!.id)).toBe(true);
        await runAll(dead);
        await runAll(store.inbox('stuck'));
        expect(await store.listInboxes({ attention: true })).toMatchObject({ inboxes: [], total: 0, needAttention: 0 });
      });

      it('a handle on the same data sees the same overview', async () => {
        const { store, reopen } = await open();
        const dead = store.inbox('dead');
        await dead.ingest({ source: 's', sourceId: '1' });
        await runAll(dead, { error: 'poison', dead: true });
        await store.inbox('ok').ingest({ source: 's', sourceId: '1' });
        const other = await reopen();
        expect(await other.listInboxes({ attention: true })).toMatchObject({ total: 1, needAttention: 1 });
        expect(await ids(other)).toEqual(['dead', 'ok']);
      });
    });

    describe('events', () => {
      it('filters by status and source, newest first, and pages with afterId in the listing order', async () => {
        const { store } = await open({ maxAttempts: 1 });
        const inbox = store.inbox('alice');
        await inbox.ingestMany([
          { source: 'mail', sourceId: '1' },
          { source: 'chat', sourceId: '2' },
          { source: 'mail', sourceId: '3' },
          { source: 'mail', sourceId: '4' },
          { source: 'chat', sourceId: '5' },
        ]);
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, [batch[0]!.id, batch[1]!.id], { error: 'poison', dead: true });
        await inbox.finish('W', gen, batch.slice(2).map((e) => e.id));
        await inbox.ingest({ source: 'mail', sourceId: '6' });
        const keys = (rows: { sourceId: string }[]) => rows.map((r) => r.sourceId);

        expect(keys(await inbox.events())).toEqual(['1', '2', '3', '4', '5', '6']);
        expect(keys(await inbox.events({ newestFirst: true }))).toEqual(['6', '5', '4', '3', '2', '1']);
        expect(keys(await inbox.events({ source: 'mail' }))).toEqual(['1', '3', '4', '6']);
        expect(keys(await inbox.events({ source: 'mail', newestFirst: true }))).toEqual(['6', '4', '3', '1']);
        expect(keys(await inbox.events({ status: 'dead' }))).toEqual(['1', '2']);
        expect(keys(await inbox.events({ status: 'done', source: 'mail' }))).toEqual(['3', '4']);
        expect(keys(await inbox.events({ status: 'pending', source: 'chat' }))).toEqual([]);
        expect(keys(await inbox.events({ source: 'nobody' }))).toEqual([]);

        // Paging: each page starts past the last id of the one before, in its order.
        const firstPage = await inbox.events({ newestFirst: true, limit: 4 });
        expect(keys(firstPage)).toEqual(['6', '5', '4', '3']);
        expect(keys(await inbox.events({ newestFirst: true, limit: 4, afterId: firstPage.at(-1)!.id }))).toEqual(['2', '1']);
        const mail = await inbox.events({ source: 'mail', limit: 2 });
        expect(keys(mail)).toEqual(['1', '3']);
        expect(keys(await inbox.events({ source: 'mail', limit: 2, afterId: mail.at(-1)!.id }))).toEqual(['4', '6']);
        const newestMail = await inbox.events({ source: 'mail', limit: 2, newestFirst: true });
        expect(keys(await inbox.events({ source: 'mail', newestFirst: true, afterId: newestMail.at(-1)!.id }))).toEqual(['3', '1']);
        expect(keys(await inbox.events({ afterId: 0 }))).toHaveLength(6);
        const lastId = (await inbox.events({ newestFirst: true, limit: 1 }))[0]!.id;
        expect(await inbox.events({ afterId: lastId })).toEqual([]);
      });
    });

    describe('approvals', () => {
      it('lists open, answered and expired approvals, newest requested first', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'expires', expiresInMs: 1_000, action: { refund: 1 } });
        clock.set(T0 + 10);
        await inbox.requestApproval({ id: 'answered', expiresInMs: 5_000, action: 'send it' });
        clock.set(T0 + 20);
        await inbox.requestApproval({ id: 'open', expiresInMs: 60_000, action: null });
        clock.set(T0 + 30);
        expect(await inbox.answerApproval('answered', 'yes')).toBe('yes');
        clock.set(T0 + 1_000);
        // Past its deadline but not yet recorded: still null.
        expect((await store.view(inbox.id).approvals()).find((a) => a.id === 'expires')!.answer).toBeNull();
        await inbox.runScheduler();
        expect(await store.view(inbox.id).approvals()).toEqual([
          { id: 'open', action: null, requestedAt: T0 + 20, expiresAt: T0 + 60_020, answer: null, answeredAt: null },
          { id: 'answered', action: 'send it', requestedAt: T0 + 10, expiresAt: T0 + 5_010, answer: 'yes', answeredAt: T0 + 30 },
          { id: 'expires', action: { refund: 1 }, requestedAt: T0, expiresAt: T0 + 1_000, answer: 'expired', answeredAt: T0 + 1_000 },
        ]);
        expect((await store.view(inbox.id).approvals({ limit: 1 })).map((a) => a.id)).toEqual(['open']);
      });
    });

    describe('outbox and expediteOutbox', () => {
      it('shows held and sent messages and when the gap lets the next send go', async () => {
        const { store, clock } = await open({ outboxGapMs: GAP });
        const inbox = store.inbox('alice');
        expect(await store.view(inbox.id).outbox()).toEqual({ held: [], heldCount: 0, sent: [], nextSendAt: null, failed: [] });
        await queue(inbox, 'first');
        expect((await store.view(inbox.id).outbox()).nextSendAt).toBe(T0); // nothing paced yet: at once
        expect(await inbox.dispatch(() => undefined)).toBe(1);
        clock.set(T0 + 10);
        await queue(inbox, 'second', 'third');
        clock.set(T0 + 20);
        const view = await store.view(inbox.id).outbox();
        expect(view.held).toEqual([
          { id: view.held[0]!.id, body: 'second', urgent: false, createdAt: T0 + 10, sentAt: null },
          { id: view.held[1]!.id, body: 'third', urgent: false, createdAt: T0 + 10, sentAt: null },
        ]);
        expect(view.sent).toEqual([{ id: view.sent[0]!.id, body: 'first', urgent: false, createdAt: T0, sentAt: T0 }]);
        expect(view.nextSendAt).toBe(T0 + GAP);
        expect(view.held[0]!.id).toBeLessThan(view.held[1]!.id);
        expect(view.heldCount).toBe(2);
        const firstOnly = await store.view(inbox.id).outbox({ limit: 1 });
        expect(firstOnly.held.map((m) => m.body)).toEqual(['second']);
        expect(firstOnly.heldCount).toBe(2); // all of them, whatever the limit

        // An urgent message goes at once; the rest still wait for the gap.
        await (async () => {
          const gen = await lease(inbox, 'W');
          await inbox.finish('W', gen, [], { messages: [{ body: 'urgent', urgent: true }] });
          await inbox.release('W', gen);
        })();
        expect((await store.view(inbox.id).outbox()).nextSendAt).toBe(T0 + 20);
        clock.set(T0 + 30);
        expect(await inbox.dispatch(() => undefined)).toBe(1);
        const after = await store.view(inbox.id).outbox();
        expect(after.sent.map((m) => [m.body, m.urgent, m.sentAt])).toEqual([
          ['urgent', true, T0 + 30],
          ['first', false, T0],
        ]);
        expect(after.nextSendAt).toBe(T0 + GAP);
      });

      it('expediteOutbox makes every held message go at the next dispatch, within the gap, once', async () => {
        const { store, clock } = await open({ outboxGapMs: GAP });
        const inbox = store.inbox('alice');
        await queue(inbox, 'first');
        expect(await inbox.dispatch(() => undefined)).toBe(1);
        clock.set(T0 + 10);
        await queue(inbox, 'second', 'third');
        clock.set(T0 + 20);
        expect(await inbox.dispatch(() => undefined)).toBe(0);
        expect(await store.dispatchableInboxes()).toEqual([]);

        expect(await inbox.expediteOutbox()).toBe(2);
        const view = await store.view(inbox.id).outbox();
        expect(view.held.map((m) => m.urgent)).toEqual([true, true]);
        expect(view.nextSendAt).toBe(T0 + 10);
        expect(await store.dispatchableInboxes()).toEqual(['alice']);
        expect((await store.nextWake()).sendAt).toBe(T0 + 10);
        const sent: string[] = [];
        expect(await inbox.dispatch((body) => void sent.push(body))).toBe(2);
        expect(sent).toEqual(['second\n\nthird']);
        expect(await store.view(inbox.id).outbox()).toMatchObject({ held: [], heldCount: 0, nextSendAt: null });

        // Once: a message queued after it waits for the gap again (which the expedited send did not use).
        await queue(inbox, 'fourth');
        expect((await store.view(inbox.id).outbox()).nextSendAt).toBe(T0 + GAP);
        expect(await inbox.dispatch(() => undefined)).toBe(0);
        expect(await inbox.expediteOutbox()).toBe(1);
        expect(await inbox.expediteOutbox()).toBe(1);
        expect(await inbox.dispatch(() => undefined)).toBe(1);
        expect(await inbox.expediteOutbox()).toBe(0);
      });
    });

    describe('activity', () => {
      it('counts events received, finished and the runs that finished them, per bucket, empty buckets included', async () => {
        const { store, clock } = await open({ maxAttempts: 1 });
        const inbox = store.inbox('alice');
        clock.set(T0 + 100);
        await inbox.ingestMany([{ source: 's', sourceId: '1' }, { source: 's', sourceId: '2' }]);
        clock.set(T0 + 1_500);
        await inbox.ingest({ source: 's', sourceId: '3' });
        clock.set(T0 + 1_600);
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, [batch[0]!.id, batch[1]!.id]);
        clock.set(T0 + 3_200);
        await inbox.finish('W', gen, [batch[2]!.id], { error: 'poison', dead: true });
        clock.set(T0 + 4_100);
        await inbox.ingest({ source: 's', sourceId: '4' });
        clock.set(T0 + 4_500);
        expect(await store.view(inbox.id).activity({ since: T0, bucketMs: 1_000 })).toEqual([
          { start: T0, received: 2, finished: 0, runs: 0 },
          { start: T0 + 1_000, received: 1, finished: 2, runs: 1 },
          { start: T0 + 2_000, received: 0, finished: 0, runs: 0 },
          { start: T0 + 3_000, received: 0, finished: 1, runs: 1 },
          { start: T0 + 4_000, received: 1, finished: 0, runs: 0 },
        ]);
        // A bucket is [start, start + bucketMs); the window starts at since.
        expect(await store.view(inbox.id).activity({ since: T0 + 1_500, bucketMs: 3_000 })).toEqual([
          { start: T0 + 1_500, received: 2, finished: 3, runs: 2 },
          { start: T0 + 4_500, received: 0, finished: 0, runs: 0 },
        ]);
        expect(await store.view(inbox.id).activity({ since: T0 + 4_500, bucketMs: 1 })).toEqual([{ start: T0 + 4_500, received: 0, finished: 0, runs: 0 }]);
        expect(await store.view(inbox.id).activity({ since: T0 + 5_000, bucketMs: 1_000 })).toEqual([]);
      });
    });

    describe('recordAction and actions', () => {
      it('keeps what a person did, with the store time, newest first', async () => {
        const { store, clock, reopen } = await open();
        const inbox = store.inbox('alice');
        await inbox.recordAction({ actor: 'ana', action: 'redrive', target: 'event 7', result: 'ok' });
        clock.set(T0 + 5);
        await inbox.recordAction({ actor: 'ben', action: 'expedite', target: 'outbox', result: '2 messages' });
        clock.set(T0 + 5);
        await inbox.recordAction({ actor: 'ana', action: 'answer', target: 'approval refund-1', result: 'yes' });
        expect(await store.view(inbox.id).actions()).toEqual([
          { at: T0 + 5, actor: 'ana', action: 'answer', target: 'approval refund-1', result: 'yes' },
          { at: T0 + 5, actor: 'ben', action: 'expedite', target: 'outbox', result: '2 messages' },
          { at: T0, actor: 'ana', action: 'redrive', target: 'event 7', result: 'ok' },
        ]);
        expect((await store.view(inbox.id).actions({ limit: 1 })).map((a) => a.action)).toEqual(['answer']);
        expect(await (await reopen()).view('alice').actions({ limit: 2 })).toHaveLength(2);
        expect(await store.view('bob').actions()).toEqual([]);
      });
    });

    describe('never-written inboxes and bad arguments', () => {
      it('reads of an inbox never written return empty results and create nothing', async () => {
        const { store, clock } = await open();
        const ghost = store.inbox('ghost');
        clock.set(T0 + 2_500);
        expect(await ghost.events({ status: 'dead', source: 's', newestFirst: true, afterId: 5 })).toEqual([]);
        expect(await store.view(ghost.id).approvals()).toEqual([]);
        expect(await store.view(ghost.id).outbox()).toEqual({ held: [], heldCount: 0, sent: [], nextSendAt: null, failed: [] });
        expect(await store.view(ghost.id).activity({ since: T0, bucketMs: 1_000 })).toEqual([
          { start: T0, received: 0, finished: 0, runs: 0 },
          { start: T0 + 1_000, received: 0, finished: 0, runs: 0 },
          { start: T0 + 2_000, received: 0, finished: 0, runs: 0 },
        ]);
        expect(await ghost.expediteOutbox()).toBe(0);
        expect(await store.view(ghost.id).actions()).toEqual([]);
        expect(await store.inboxes()).toEqual([]);
        expect(await store.listInboxes()).toEqual({ inboxes: [], next: null, total: 0, needAttention: 0, now: T0 + 2_500 });
        expect(await store.inboxes()).toEqual([]);
      });

      const long = 'x'.repeat(1_001);
      const badCalls: [string, (store: Store) => Promise<unknown>][] = [
        ['listInboxes limit 0', (s) => s.listInboxes({ limit: 0 })],
        ['listInboxes limit 1.5', (s) => s.listInboxes({ limit: 1.5 })],
        ['listInboxes limit 501', (s) => s.listInboxes({ limit: 501 })],
        ['listInboxes search 42', (s) => s.listInboxes({ search: 42 as never })],
        ['listInboxes search too long', (s) => s.listInboxes({ search: long })],
        ['listInboxes after null', (s) => s.listInboxes({ after: null as never })],
        ['listInboxes attention "yes"', (s) => s.listInboxes({ attention: 'yes' as never })],
        ['listInboxes stuckAfterMs -1', (s) => s.listInboxes({ stuckAfterMs: -1 })],
        ['listInboxes query a string', (s) => s.listInboxes('all' as never)],
        ['events status "lost"', (s) => s.inbox('ghost').events({ status: 'lost' as never })],
        ['events source 7', (s) => s.inbox('ghost').events({ source: 7 as never })],
        ['events source ""', (s) => s.inbox('ghost').events({ source: '' })],
        ['events newestFirst 1', (s) => s.inbox('ghost').events({ newestFirst: 1 as never })],
        ['events afterId 1.5', (s) => s.inbox('ghost').events({ afterId: 1.5 })],
        ['events afterId "3"', (s) => s.inbox('ghost').events({ afterId: '3' as never })],
        ['events limit 0', (s) => s.inbox('ghost').events({ limit: 0 })],
        ['approvals limit 0', (s) => s.view('ghost').approvals({ limit: 0 })],
        ['approvals limit 501', (s) => s.view('ghost').approvals({ limit: 501 })],
        ['outbox limit -1', (s) => s.view('ghost').outbox({ limit: -1 })],
        ['actions limit 2.5', (s) => s.view('ghost').actions({ limit: 2.5 })],
        ['activity with no query', (s) => s.view('ghost').activity(undefined as never)],
        ['activity since -1', (s) => s.view('ghost').activity({ since: -1, bucketMs: 1_000 })],
        ['activity since 1.5', (s) => s.view('ghost').activity({ since: 1.5, bucketMs: 1_000 })],
        ['activity bucketMs 0', (s) => s.view('ghost').activity({ since: T0, bucketMs: 0 })],
        ['activity bucketMs -5', (s) => s.view('ghost').activity({ since: T0, bucketMs: -5 })],
        ['activity over 10,000 buckets', (s) => s.view('ghost').activity({ since: 0, bucketMs: 1 })],
        ['recordAction with nothing', (s) => s.inbox('ghost').recordAction(undefined as never)],
        ['recordAction actor ""', (s) => s.inbox('ghost').recordAction({ actor: '', action: 'a', target: 't', result: 'r' })],
        ['recordAction action missing', (s) => s.inbox('ghost').recordAction({ actor: 'a', target: 't', result: 'r' } as never)],
        ['recordAction target 5', (s) => s.inbox('ghost').recordAction({ actor: 'a', action: 'a', target: 5 as never, result: 'r' })],
        ['recordAction result too long', (s) => s.inbox('ghost').recordAction({ actor: 'a', action: 'a', target: 't', result: long })],
        ['recordAction actor with NUL', (s) => s.inbox('ghost').recordAction({ actor: 'a\u0000b', action: 'a', target: 't', result: 'r' })],
      ];

      it.each(badCalls)('%s is invalid_argument and writes nothing', async (_what, call) => {
        const { store } = await open();
        await expectVigilError(call(store), 'invalid_argument');
        expect(await store.inboxes()).toEqual([]);
        expect((await store.listInboxes()).total).toBe(0);
      });

      it('a bad argument on an inbox that exists changes nothing in it', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.recordAction({ actor: 'ana', action: 'note', target: 'inbox', result: 'ok' });
        await expectVigilError(inbox.recordAction({ actor: 'ana', action: '', target: 'inbox', result: 'ok' }), 'invalid_argument');
        expect(await store.view(inbox.id).actions()).toHaveLength(1);
      });
    });
  });
}
