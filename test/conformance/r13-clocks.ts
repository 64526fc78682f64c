import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Inbox } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

const MINUTE = 60_000;
const SKEW = 5 * MINUTE;
const TTL = MINUTE;

/**
 * R13: with PostgreSQL, lease expiry must not depend on workers' clocks
 * agreeing. Two handles stand for two machines whose clocks are 5 minutes
 * apart, one behind and one ahead: before each of its calls, a machine's
 * clock (Date) is set to real time -5 or +5 minutes. The lease lasts one
 * minute, so judged by the machine clocks the one ahead would see the other's
 * lease as long expired the moment it was taken.
 */
export function r13Clocks(target: StoreTarget): void {
  describe(`R13 clocks (${target.name})`, () => {
    const open = useStore(target);

    if (!target.capabilities.databaseClock) {
      it("refuses clock: 'database' with invalid_options: this store has no database clock", async () => {
        await expectVigilError(open({ clock: 'database' }), 'invalid_options');
      });
      return;
    }

    let realNow = 0; // real time when the test's machines were set up
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Runs one call "on a machine" whose clock is `skew` off real time. */
    function machine(skew: number): <T>(call: () => Promise<T>) => Promise<T> {
      return async (call) => {
        vi.setSystemTime(realNow + skew);
        return call();
      };
    }
    const behind = machine(-SKEW);
    const ahead = machine(+SKEW);

    async function twoMachines(clock: 'database' | (() => number)): Promise<{ a: Inbox; b: Inbox }> {
      const { store, reopen } = await open({ clock, leaseTtlMs: TTL });
      realNow = Date.now();
      vi.useFakeTimers({ toFake: ['Date'] });
      return { a: store.inbox('alice'), b: (await reopen()).inbox('alice') };
    }

    it("with clock: 'database' the machine ahead cannot take a lease the machine behind holds", async () => {
      const { a, b } = await twoMachines('database');
      const gen = await behind(() => a.acquire('A'));
      expect(gen).toBe(1);
      expect(await ahead(() => b.acquire('B'))).toBeNull();
      expect(await ahead(() => b.claimBatch('B', 1))).toEqual([]);
      expect(await ahead(() => b.finish('B', 1, []))).toBe(false);

      // The lease runs on the database's clock: near real time, not either machine's.
      const { lease } = await ahead(() => b.stats());
      expect(lease).toMatchObject({ holder: 'A', gen: 1 });
      expect(Math.abs(lease!.until - TTL - realNow)).toBeLessThan(SKEW / 2);

      // A still holds it by the database's clock: it works, and B stays out.
      await behind(() => a.ingest({ source: 's', sourceId: '1' }));
      const batch = await behind(() => a.claimBatch('A', 1));
      expect(batch.map((e) => e.sourceId)).toEqual(['1']);
      expect(await behind(() => a.finish('A', 1, [batch[0]!.id], { messages: ['done'] }))).toBe(true);
      const event = await ahead(() => b.getEvent('s', '1'));
      expect(Math.abs(event!.receivedAt - realNow)).toBeLessThan(SKEW / 2);

      // Only a release hands it over, with a new generation that fences A out.
      expect(await behind(() => a.release('A', 1))).toBe(true);
      expect(await ahead(() => b.acquire('B'))).toBe(2);
      expect(await behind(() => a.acquire('A'))).toBeNull();
      expect(await behind(() => a.claimBatch('A', 1))).toEqual([]);
    });

    it('a lease taken on the machine ahead lasts leaseTtlMs by the database clock, not five minutes more', async () => {
      const { a, b } = await twoMachines('database');
      expect(await ahead(() => b.acquire('B'))).toBe(1);
      const { lease } = await behind(() => a.stats());
      expect(Math.abs(lease!.until - TTL - realNow)).toBeLessThan(SKEW / 2);
      expect(await behind(() => a.acquire('A'))).toBeNull();
    });

    it('control: an injected clock decides instead, so skewed machine clocks would let two holders in', async () => {
      // This is why the default is the database's clock: the same calls with
      // each machine's own clock give B the lease while A believes it holds it.
      const { a, b } = await twoMachines(() => Date.now());
      expect(await behind(() => a.acquire('A'))).toBe(1);
      expect(await ahead(() => b.acquire('B'))).toBe(2);
      const { lease } = await ahead(() => b.stats());
      expect(lease).toMatchObject({ holder: 'B', gen: 2, until: realNow + SKEW + TTL });
    });
  });
}
