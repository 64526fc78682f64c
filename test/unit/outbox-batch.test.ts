/**
 * planDispatch (R9), the choice both stores make before a send: what goes,
 * as one body, whether it counts against the pacing (the gap, the daily
 * limit), and until when quiet hours or a used-up limit hold the rest. The
 * rows and times here are what the stores read; test/conformance/r9-*.ts
 * check the same rules through each store.
 */
import { describe, expect, it } from 'vitest';
import { planDispatch, type HeldRow, type PacingPolicy, type PacingState } from '../../src/store/outbox-batch.js';

const GAP = 60_000;
const row = (id: number, body: string, flags: Partial<Pick<HeldRow, 'urgent' | 'reservedBefore' | 'channel'>> = {}): HeldRow => ({
  id,
  body,
  urgent: flags.urgent ?? false,
  reservedBefore: flags.reservedBefore ?? false,
  channel: flags.channel ?? null,
});
const gapOnly = (gapMs = GAP): PacingPolicy => ({ gapMs, quietHours: null, dailyLimit: null });
const paced = (lastPaced: number | null, day: string | null = null, daySends = 0): PacingState => ({ lastPaced, day, daySends });
const plan = (held: HeldRow[], state: PacingState, now: number, policy: PacingPolicy = gapOnly()) => planDispatch(held, state, now, policy);

describe('planDispatch', () => {
  it('nothing held: nothing to send', () => {
    expect(plan([], paced(null), 1_000)).toEqual({ batch: null, notBefore: null });
    expect(plan([], paced(0), 1_000_000)).toEqual({ batch: null, notBefore: null });
  });

  it('never sent before: everything held goes, as one body joined by a blank line, and counts against the gap', () => {
    const { batch } = plan([row(1, 'one'), row(2, 'two', { urgent: true, channel: 'slack' })], paced(null), 5_000);
    expect(batch!.messages).toEqual([
      { id: 1, body: 'one', urgent: false, channel: null },
      { id: 2, body: 'two', urgent: true, channel: 'slack' },
    ]);
    expect(batch!.body).toBe('one\n\ntwo');
    expect(batch!.pacing).toEqual({ previous: paced(null), next: paced(5_000), at: 5_000 });
    expect(batch!.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('the gap has passed (exactly, or more): everything goes; the previous paced send is kept to restore', () => {
    expect(plan([row(1, 'a')], paced(10_000), 10_000 + GAP).batch).toMatchObject({ body: 'a', pacing: { previous: paced(10_000), at: 10_000 + GAP } });
    expect(plan([row(1, 'a')], paced(10_000), 10_000 + GAP + 1).batch).toMatchObject({ body: 'a', pacing: { at: 10_000 + GAP + 1 } });
  });

  it('within the gap: paced messages wait; nothing else held means nothing to send, and the gap alone sets no notBefore', () => {
    expect(plan([row(1, 'a'), row(2, 'b')], paced(10_000), 10_000 + GAP - 1)).toEqual({ batch: null, notBefore: null });
  });

  it('within the gap: urgent messages go alone and do not count against it', () => {
    const { batch } = plan([row(1, 'paced'), row(2, 'urgent', { urgent: true }), row(3, 'later')], paced(10_000), 10_001);
    expect(batch!.messages.map((m) => m.id)).toEqual([2]);
    expect(batch!.body).toBe('urgent');
    expect(batch!.pacing).toBeNull();
  });

  it('within the gap: a batch whose reservation expired goes again at once, without counting again', () => {
    const { batch } = plan([row(1, 'retry', { reservedBefore: true }), row(2, 'new')], paced(10_000), 10_001);
    expect(batch!.messages.map((m) => m.id)).toEqual([1]);
    expect(batch!.pacing).toBeNull();
  });

  it('after the gap, a batch that is only urgent or re-sent messages does not count against it; one paced message makes it count', () => {
    expect(plan([row(1, 'u', { urgent: true }), row(2, 'r', { reservedBefore: true })], paced(0), GAP * 2).batch!.pacing).toBeNull();
    expect(plan([row(1, 'u', { urgent: true }), row(2, 'p')], paced(0), GAP * 2).batch!.pacing).toEqual({
      previous: paced(0),
      next: paced(GAP * 2),
      at: GAP * 2,
    });
  });

  it('a gap of 0 lets everything go every time', () => {
    expect(plan([row(1, 'a'), row(2, 'b')], paced(500), 500, gapOnly(0)).batch).toMatchObject({ body: 'a\n\nb', pacing: { at: 500 } });
  });

  it('each plan has its own token', () => {
    const tokens = new Set(Array.from({ length: 5 }, () => plan([row(1, 'a')], paced(null), 0).batch!.token));
    expect(tokens.size).toBe(5);
  });

  describe('quiet hours', () => {
    const quiet: PacingPolicy = { gapMs: 0, quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC' }, dailyLimit: null };
    const at = (iso: string): number => Date.parse(iso);

    it('inside them: urgent alone, paced ones held until they end (notBefore), nothing counted', () => {
      const decision = plan([row(1, 'paced'), row(2, 'urgent', { urgent: true })], paced(null), at('2026-01-15T23:30:00Z'), quiet);
      expect(decision.batch!.messages.map((m) => m.id)).toEqual([2]);
      expect(decision.batch!.pacing).toBeNull();
      expect(decision.notBefore).toBe(at('2026-01-16T07:00:00Z'));
    });

    it('at their end, not a ms before: everything goes together', () => {
      expect(plan([row(1, 'a')], paced(null), at('2026-01-16T06:59:59.999Z'), quiet)).toEqual({ batch: null, notBefore: at('2026-01-16T07:00:00Z') });
      expect(plan([row(1, 'a'), row(2, 'b')], paced(null), at('2026-01-16T07:00:00Z'), quiet)).toMatchObject({ batch: { body: 'a\n\nb' }, notBefore: null });
    });

    it('a re-sent batch goes even inside them', () => {
      expect(plan([row(1, 'again', { reservedBefore: true })], paced(null), at('2026-01-15T23:00:00Z'), quiet).batch!.messages.map((m) => m.id)).toEqual([1]);
    });
  });

  describe('daily limit', () => {
    const limited = (dailyLimit: number): PacingPolicy => ({ gapMs: 0, quietHours: null, dailyLimit });
    const noon = Date.parse('2026-01-15T12:00:00Z');
    const midnight = Date.parse('2026-01-16T00:00:00Z');

    it("counts paced sends on the local day, and the one that uses it up holds later ones until the next day's start", () => {
      const first = plan([row(1, 'a')], paced(null), noon, limited(2));
      expect(first).toMatchObject({ batch: { pacing: { next: paced(noon, '2026-01-15', 1) } }, notBefore: null });
      const second = plan([row(2, 'b')], paced(noon, '2026-01-15', 1), noon + 1, limited(2));
      expect(second).toMatchObject({ batch: { pacing: { next: paced(noon + 1, '2026-01-15', 2) } }, notBefore: midnight });
      expect(plan([row(3, 'c')], paced(noon + 1, '2026-01-15', 2), noon + 2, limited(2))).toEqual({ batch: null, notBefore: midnight });
    });

    it('urgent ones go and are not counted; a new day starts the count again', () => {
      const urgent = plan([row(1, 'u', { urgent: true }), row(2, 'p')], paced(noon, '2026-01-15', 1), noon + 5, limited(1));
      expect(urgent.batch!.messages.map((m) => m.id)).toEqual([1]);
      expect(urgent.batch!.pacing).toBeNull();
      expect(plan([row(2, 'p')], paced(noon, '2026-01-15', 1), midnight, limited(1))).toMatchObject({
        batch: { pacing: { next: paced(midnight, '2026-01-16', 1) } },
        notBefore: Date.parse('2026-01-17T00:00:00Z'),
      });
    });

    it("yesterday's used-up count holds nothing today, even when today's batch does not count (urgent only, or nothing held)", () => {
      const usedUpYesterday = paced(noon - 86_400_000, '2026-01-14', 1);
      const urgent = plan([row(1, 'u', { urgent: true })], usedUpYesterday, noon, limited(1));
      expect(urgent.batch!.pacing).toBeNull();
      expect(urgent.notBefore).toBeNull();
      expect(plan([], usedUpYesterday, noon, limited(1))).toEqual({ batch: null, notBefore: null });
    });

    it('a limit of 0 sends nothing paced at all', () => {
      expect(plan([row(1, 'p')], paced(null), noon, limited(0))).toEqual({ batch: null, notBefore: midnight });
    });
  });
});
