/**
 * The one policy for ids and keys on every store (contract.ts, "Ids and
 * keys"): case, NUL and lone surrogates, and length, refused or kept the
 * same way whatever the backend, so a store moves between backends with
 * exactly the same data.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const NUL = 'a\u0000b';
const LONE = 'a\uD800b';

export function idsAndKeys(target: StoreTarget): void {
  describe(`ids and keys, one policy (${target.name})`, () => {
    const open = useStore(target);

    it('keys are compared exactly, case included: S/x and s/x are two events, x and X two timers', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await inbox.ingestMany([
        { source: 'S', sourceId: 'x' },
        { source: 's', sourceId: 'x' },
        { source: 's', sourceId: 'X' },
        { source: 's', sourceId: 'x' },
      ])).toEqual([true, true, true, false]);
      await inbox.addTimer({ id: 'x', due: T0 + 10 });
      await inbox.addTimer({ id: 'X', due: T0 + 20 });
      expect((await inbox.timers()).map((t) => t.id).sort()).toEqual(['X', 'x']);
      expect(await inbox.getEvent('S', 'x')).not.toBeNull();
      expect(await inbox.getEvent('S', 'X')).toBeNull();
    });

    /** Each call with a NUL or a lone surrogate in text the store would keep as text, and the code it is refused with. */
    const refusals = (text: string): [string, (store: Store) => Promise<unknown>, string][] => [
      ['source', (s) => s.inbox('alice').ingest({ source: text, sourceId: '1' }), 'invalid_event'],
      ['sourceId', (s) => s.inbox('alice').ingest({ source: 's', sourceId: text }), 'invalid_event'],
      ['an ingestMany key', (s) => s.inbox('alice').ingestMany([{ source: 's', sourceId: '1' }, { source: 's', sourceId: text }]), 'invalid_event'],
      ['a holder', (s) => s.inbox('alice').acquire(text), 'invalid_argument'],
      ['a timer id', (s) => s.inbox('alice').addTimer({ id: text, due: T0 }), 'invalid_timer'],
      ['a timer key', (s) => s.inbox('alice').addTimer({ id: 't', due: T0, key: { source: 's', sourceId: text } }), 'invalid_timer'],
      ['an approval id', (s) => s.inbox('alice').requestApproval({ id: text, expiresInMs: 1_000, action: 'x' }), 'invalid_argument'],
      ['an events() source filter', (s) => s.inbox('alice').events({ source: text }), 'invalid_argument'],
      ['a getEvent key', (s) => s.inbox('alice').getEvent('s', text), 'invalid_argument'],
      ['an operator action', (s) => s.inbox('alice').recordAction({ actor: text, action: 'a', target: 't', result: 'r' }), 'invalid_argument'],
    ];

    for (const [what, text] of [['NUL', NUL], ['a lone surrogate', LONE]] as const) {
      it.each(refusals(text))(`${what} in %s is refused on every store, and nothing is stored`, async (_where, call, code) => {
        const { store } = await open();
        await expectVigilError(call(store), code as never);
        expect(await store.inboxes()).toEqual([]);
      });

      it(`${what} in a run's message, error or memory key is refused; the events stay running, nothing is queued`, async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        const gen = await lease(inbox, 'W');
        const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
        await expectVigilError(inbox.finish('W', gen, ids, { messages: [text] }), 'invalid_argument');
        await expectVigilError(inbox.finish('W', gen, ids, { error: text }), 'invalid_argument');
        await expectVigilError(inbox.finish('W', gen, ids, { memory: { set: { [text]: 1 } } }), 'invalid_memory');
        expect((await inbox.stats()).events.running).toBe(1);
        expect((await inbox.stats()).outbox.held).toBe(0);
      });
    }

    it('inside JSON (payloads, actions, memory values) NUL and lone surrogates are escaped, so they round-trip unchanged', async () => {
      const { store, reopen } = await open();
      const inbox = store.inbox('alice');
      const payload = { text: NUL, half: LONE, [NUL]: 'key' };
      await inbox.ingest({ source: 's', sourceId: '1', payload });
      await inbox.requestApproval({ id: 'a', expiresInMs: 1_000, action: { note: NUL } });
      expect((await (await reopen()).inbox('alice').getEvent('s', '1'))!.payload).toEqual(payload);
      expect((await store.view('alice').approvals())[0]!.action).toEqual({ note: NUL });
    });

    it.each([
      ['source', 256, (store: Store, text: string) => store.inbox('alice').ingest({ source: text, sourceId: '1' }), 'invalid_event'],
      ['sourceId', 256, (store: Store, text: string) => store.inbox('alice').ingest({ source: 's', sourceId: text }), 'invalid_event'],
      ['a holder', 256, (store: Store, text: string) => store.inbox('alice').acquire(text), 'invalid_argument'],
      ['a timer id', 200, (store: Store, text: string) => store.inbox('alice').addTimer({ id: text, due: T0 }), 'invalid_timer'],
      ['an approval id', 256, (store: Store, text: string) => store.inbox('alice').requestApproval({ id: text, expiresInMs: 1_000, action: 'x' }), 'invalid_argument'],
    ] as const)('%s: %i characters are kept, one more is refused', async (_what, max, call, code) => {
      const { store } = await open();
      await call(store, 'é'.repeat(max));
      await expectVigilError(call(store, 'k'.repeat(max + 1)) as Promise<unknown>, code);
    });
  });
}
