/**
 * The ledger of side effects through every crash point of the testing kit:
 * what a crash at each point leaves of a side-effect call (contract/effects.ts),
 * on SQLite (the conformance suite holds PostgreSQL to the same store rules).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, defineTool, type AgentContext, type EffectState } from '../../src/index.js';
import { CRASH_POINTS, crashingStore, isSimulatedCrash, runOnce, throwawayStore, type CrashPoint, type ThrowawayStore } from '../../src/testing/index.js';

const LEASE_TTL = 30_000;
const opened: ThrowawayStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((kit) => kit.close()));
});

/** An agent whose one tool (a refund) is a side effect, applied once per key by a fake payment API. */
function refundAgent() {
  const refunds: string[] = [];
  const refund = defineTool<{ order: string }>({
    name: 'refund',
    description: 'Refund an order',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } } },
    sideEffect: true,
    run: async (input, call) => {
      refunds.push(call.idempotencyKey);
      return { refunded: input.order };
    },
  });
  const agent = defineAgent({
    name: 'refunds',
    tools: [refund],
    permissions: { refund: 'allow' },
    async run(ctx: AgentContext) {
      const outcome = await ctx.tools.call('refund', { order: '42' });
      return { messages: [`refund: ${outcome.status}`] };
    },
  });
  return { agent, refunds };
}

/** The ledger's state after a crash at each point, whether the tool ran, and whether the call is unknown to the next run. */
const AFTER: Record<CrashPoint, { state: EffectState | null; ran: boolean; unknown: boolean }> = {
  'after-acquire': { state: null, ran: false, unknown: false },
  'after-claim': { state: null, ran: false, unknown: false },
  // The tool ran, but no finish recorded it: nobody knows.
  'before-finish': { state: 'started', ran: true, unknown: true },
  'in-finish': { state: 'started', ran: true, unknown: true },
  'after-finish': { state: 'confirmed', ran: true, unknown: false },
  'in-dispatch': { state: 'confirmed', ran: true, unknown: false },
  'between-send-and-record': { state: 'confirmed', ran: true, unknown: false },
  'before-release': { state: 'confirmed', ran: true, unknown: false },
  // Started, committed, and the worker died before the tool returned (here: before it ran).
  'in-effect': { state: 'started', ran: false, unknown: true },
};

describe('the ledger of side effects through each crash point', () => {
  for (const point of CRASH_POINTS) {
    it(`${point}: ${AFTER[point].state ?? 'nothing recorded'}${AFTER[point].unknown ? ', unknown to the next run, which does not run it again' : ''}`, async () => {
      const kit = await throwawayStore({ leaseTtlMs: LEASE_TTL, retryBackoff: { baseMs: 0 }, outboxGapMs: 0 });
      opened.push(kit);
      const { store, clock } = kit;
      const { agent, refunds } = refundAgent();
      const inbox = store.inbox('shop');
      await inbox.ingest({ source: 'chat', sourceId: 'order-42' });
      const crashing = crashingStore(store, { at: point, inbox: 'shop' });

      const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
      if (point === 'in-dispatch' || point === 'between-send-and-record') {
        expect(a.outcome).toBe('worked');
        const crash = await crashing.inbox('shop').dispatch(() => undefined).catch((error: unknown) => error);
        expect(isSimulatedCrash(crash)).toBe(true);
      } else {
        expect(a.outcome).toBe('crashed');
        expect(a.crash?.point).toBe(point);
      }
      if (point === 'in-effect') expect(crashing.crashes[0]!.effect).toMatchObject({ tool: 'refund' });
      const expected = AFTER[point];
      expect(refunds.length).toBe(expected.ran ? 1 : 0);
      const rows = await inbox.effects({ which: 'all' });
      expect(rows.map((row) => row.state)).toEqual(expected.state === null ? [] : [expected.state]);

      clock.advance(LEASE_TTL + 1);
      expect((await inbox.effects()).length).toBe(expected.unknown ? 1 : 0);
      const b = await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock });
      const ranBefore = expected.ran ? 1 : 0;
      if (expected.unknown) {
        // The retry makes the same call (the same key): refused, not run again.
        expect(b.runs.map((run) => run.outcome)).toEqual(['messages']);
        expect(refunds.length).toBe(ranBefore);
        expect((await inbox.effects()).map((row) => row.tool)).toEqual(['refund']);
      } else if (expected.state === null) {
        expect(refunds.length).toBe(1); // never started before: the retry runs it once
        expect((await inbox.effects({ which: 'all' })).map((row) => row.state)).toEqual(['confirmed']);
      } else {
        expect(refunds.length).toBe(1);
        expect((await inbox.effects({ which: 'all' })).map((row) => row.state)).toEqual(['confirmed']);
      }
    });
  }
});
