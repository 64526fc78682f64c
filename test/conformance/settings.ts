/**
 * Per-inbox settings (contract.ts, InboxSettings): stored in the inbox,
 * changed by JSON merge patch, refused whole when the result would be
 * invalid, the same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { VigilError } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

const FULL = {
  contacts: { slack: 'D0123', email: 'ana@example.com' },
  outbox: { gapMs: 0, quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' }, dailyLimit: 3 },
  wake: { debounceMs: 2_000, maxWaitMs: 10_000 },
};

export function inboxSettings(target: StoreTarget): void {
  describe(`per-inbox settings (${target.name})`, () => {
    const open = useStore(target);

    it('an inbox has none until set ({}), and reading them creates nothing', async () => {
      const { store } = await open();
      expect(await store.inbox('alice').settings()).toEqual({});
      expect(await store.inboxes()).toEqual([]);
    });

    it('a patch returns the whole settings after it, as every other process reads them', async () => {
      const { store, reopen } = await open();
      expect(await store.inbox('alice').updateSettings(FULL)).toEqual(FULL);
      expect(await (await reopen()).inbox('alice').settings()).toEqual(FULL);
      expect(await store.inbox('bob').settings()).toEqual({});
    });

    it('merge patch: an object merges into the one there, null removes a key, an emptied object goes too', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings(FULL);
      expect(await inbox.updateSettings({ contacts: { slack: null, webhook: 'https://example.com/ana' }, outbox: { gapMs: 500 } })).toEqual({
        ...FULL,
        contacts: { email: 'ana@example.com', webhook: 'https://example.com/ana' },
        outbox: { ...FULL.outbox, gapMs: 500 },
      });
      expect(await inbox.updateSettings({ wake: { debounceMs: null, maxWaitMs: null }, outbox: { quietHours: null, dailyLimit: null, gapMs: null } })).toEqual({
        contacts: { email: 'ana@example.com', webhook: 'https://example.com/ana' },
      });
      expect(await inbox.updateSettings({ contacts: null })).toEqual({});
      expect(await inbox.settings()).toEqual({});
    });

    it.each([
      ['a negative gap', { outbox: { gapMs: -1 } }, 'outbox.gapMs'],
      ['a fractional gap', { outbox: { gapMs: 1.5 } }, 'outbox.gapMs'],
      ['a gap as a string', { outbox: { gapMs: '1000' } }, 'outbox.gapMs'],
      ['a negative daily limit', { outbox: { dailyLimit: -2 } }, 'outbox.dailyLimit'],
      ['quiet hours from 25:00', { outbox: { quietHours: { from: '25:00', to: '07:00', timeZone: 'UTC' } } }, 'outbox.quietHours.from'],
      ['quiet hours to 7:00', { outbox: { quietHours: { from: '22:00', to: '7:00', timeZone: 'UTC' } } }, 'outbox.quietHours.to'],
      ['quiet hours in an unknown time zone', { outbox: { quietHours: { from: '22:00', to: '07:00', timeZone: 'Mars/Olympus' } } }, 'outbox.quietHours.timeZone'],
      ['a time zone that is no IANA zone', { timeZone: 'CEST+1' }, 'timeZone'],
      ['quiet hours that end where they start', { outbox: { quietHours: { from: '08:00', to: '08:00', timeZone: 'UTC' } } }, 'outbox.quietHours'],
      ['an unknown key in quiet hours', { outbox: { quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC', days: 'mon' } } }, 'outbox.quietHours.days'],
      ['maxWaitMs below debounceMs', { wake: { debounceMs: 1_000, maxWaitMs: 999 } }, 'wake.maxWaitMs'],
      ['maxWaitMs with no debounce', { wake: { maxWaitMs: 1_000 } }, 'wake.maxWaitMs'],
      ['a contact that is not a string', { contacts: { slack: 42 } }, 'contacts.slack'],
      ['an empty contact', { contacts: { email: '' } }, 'contacts.email'],
      ['a contact with NUL', { contacts: { email: 'a\u0000b' } }, 'contacts.email'],
      ['a channel name in capitals', { contacts: { Slack: 'D1' } }, 'contacts.Slack'],
      ['an unknown top-level key', { outbx: { gapMs: 0 } }, 'outbx'],
      ['an unknown outbox key', { outbox: { gap: 0 } }, 'outbox.gap'],
      ['outbox as a number', { outbox: 5 }, 'outbox'],
    ])('%s is invalid_settings naming %s; nothing changes', async (_what, patch, field) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ outbox: { gapMs: 7 } });
      const error = (await expectVigilError(inbox.updateSettings(patch), 'invalid_settings')) as VigilError;
      expect(error.field).toBe(field);
      expect(error.message).toContain(field);
      expect(await inbox.settings()).toEqual({ outbox: { gapMs: 7 } });
    });

    it.each([
      ['null', null],
      ['an array', [{ outbox: {} }]],
      ['a string', 'gapMs=0'],
    ])('a patch that is %s is invalid_settings, and no inbox is created', async (_what, patch) => {
      const { store } = await open();
      const error = await expectVigilError(store.inbox('alice').updateSettings(patch), 'invalid_settings');
      expect(error.message).toMatch(/^a settings patch must be an object, got /);
      expect(await store.inboxes()).toEqual([]);
    });
  });
}
