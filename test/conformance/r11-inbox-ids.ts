import { describe, expect, it } from 'vitest';
import { useStore, type StoreTarget } from './harness.js';
import { T0 } from './harness.js';
import { expectVigilError, expectVigilErrorSync } from './helpers.js';

export function r11InboxIds(target: StoreTarget): void {
  describe(`R11 inbox ids (${target.name})`, () => {
    const open = useStore(target);

    it.each([
      ['a parent path', '../x'],
      ['a parent directory', '..'],
      ['the current directory', '.'],
      ['a nested path', 'a/b'],
      ['an absolute path', '/etc/passwd'],
      ['a backslash path', 'a\\b'],
      ['a hidden name', '.hidden'],
      ['an empty id', ''],
      ['129 characters', 'a'.repeat(129)],
      ['a space', 'a b'],
      ['a null byte', 'a\u0000b'],
      ['a newline', 'a\nb'],
      ['a leading dash', '-rf'],
      ['a leading underscore', '_vigil'],
      ['a colon', 'c:x'],
      ['a non-ASCII letter', 'zoë'],
      ['a number', 42],
      ['null', null],
      ['undefined', undefined],
    ])('%s is invalid_inbox_id and creates nothing', async (_what, id) => {
      const { store } = await open();
      expectVigilErrorSync(() => store.inbox(id as never), 'invalid_inbox_id');
      expect(await store.inboxes()).toEqual([]);
    });

    it.each([
      ['128 characters', 'a'.repeat(128)],
      ['one letter', 'A'],
      ['one digit', '7'],
      ['dots, dashes and underscores inside', 'team.alice_2-prod'],
      ['dots after the first character', 'a..b.'],
    ])('%s is a valid id that round-trips through inboxes()', async (_what, id) => {
      const { store, reopen } = await open();
      const inbox = store.inbox(id);
      expect(inbox.id).toBe(id);
      expect(await inbox.ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect(await store.inboxes()).toEqual([id]);
      expect(await (await reopen()).inbox(id).getEvent('s', '1')).not.toBeNull();
    });

    it('two ids that differ only in case never both exist: the second is refused on every write, the first keeps its events', async () => {
      const { store, reopen } = await open();
      await store.inbox('Alice').ingest({ source: 's', sourceId: '1' });
      const other = await reopen(); // another process, which never saw 'Alice' written
      for (const write of [
        () => other.inbox('alice').ingest({ source: 's', sourceId: '1', payload: 'lower' }),
        () => other.inbox('ALICE').acquire('W'),
        () => other.inbox('aLiCe').addTimer({ id: 't', due: T0 }),
        () => store.inbox('alice').requestApproval({ id: 'a', expiresInMs: 1_000, action: 'x' }),
      ]) {
        await expectVigilError(write(), 'invalid_inbox_id');
      }
      expect(await store.inboxes()).toEqual(['Alice']);
      expect(await other.inbox('alice').events()).toEqual([]);
      expect((await store.inbox('Alice').events()).map((e) => e.payload)).toEqual([null]);
      expect(await store.inbox('Alice').ingest({ source: 's', sourceId: '2' })).toBe(true);
    });

    it('inboxes are isolated from each other', async () => {
      const { store } = await open();
      await store.inbox('a').ingest({ source: 's', sourceId: '1' });
      expect(await store.inbox('b').ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect(await store.inbox('a.b').events()).toEqual([]);
      expect((await store.inbox('a').stats()).events.pending).toBe(1);
    });
  });
}
