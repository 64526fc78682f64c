/**
 * planDispatch (R9), the choice both stores make before a send: what goes,
 * as one body, and whether it counts against the gap. The rows and times
 * here are what the stores read; test/conformance/r9-outbox.ts checks the
 * same rules through each store.
 */
import { describe, expect, it } from 'vitest';
import { planDispatch, type HeldRow } from '../../src/store/outbox-batch.js';

const GAP = 60_000;
const row = (id: number, body: string, flags: Partial<Pick<HeldRow, 'urgent' | 'reservedBefore'>> = {}): HeldRow => ({
  id,
  body,
  urgent: flags.urgent ?? false,
  reservedBefore: flags.reservedBefore ?? false,
});

describe('planDispatch', () => {
  it('nothing held: nothing to send', () => {
    expect(planDispatch([], null, 1_000, GAP)).toBeNull();
    expect(planDispatch([], 0, 1_000_000, GAP)).toBeNull();
  });

  it('never sent before: everything held goes, as one body joined by a blank line, and counts against the gap', () => {
    const plan = planDispatch([row(1, 'one'), row(2, 'two', { urgent: true })], null, 5_000, GAP)!;
    expect(plan.messages).toEqual([
      { id: 1, body: 'one', urgent: false },
      { id: 2, body: 'two', urgent: true },
    ]);
    expect(plan.body).toBe('one\n\ntwo');
    expect(plan.pacing).toEqual({ previous: null, at: 5_000 });
    expect(plan.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('the gap has passed (exactly, or more): everything goes; the previous paced send is kept to restore', () => {
    expect(planDispatch([row(1, 'a')], 10_000, 10_000 + GAP, GAP)).toMatchObject({ body: 'a', pacing: { previous: 10_000, at: 10_000 + GAP } });
    expect(planDispatch([row(1, 'a')], 10_000, 10_000 + GAP + 1, GAP)).toMatchObject({ body: 'a', pacing: { previous: 10_000, at: 10_000 + GAP + 1 } });
  });

  it('within the gap: paced messages wait; nothing else held means nothing to send', () => {
    expect(planDispatch([row(1, 'a'), row(2, 'b')], 10_000, 10_000 + GAP - 1, GAP)).toBeNull();
  });

  it('within the gap: urgent messages go alone and do not count against it', () => {
    const plan = planDispatch([row(1, 'paced'), row(2, 'urgent', { urgent: true }), row(3, 'later')], 10_000, 10_001, GAP)!;
    expect(plan.messages.map((m) => m.id)).toEqual([2]);
    expect(plan.body).toBe('urgent');
    expect(plan.pacing).toBeNull();
  });

  it('within the gap: a batch whose reservation expired goes again at once, without counting again', () => {
    const plan = planDispatch([row(1, 'retry', { reservedBefore: true }), row(2, 'new')], 10_000, 10_001, GAP)!;
    expect(plan.messages.map((m) => m.id)).toEqual([1]);
    expect(plan.pacing).toBeNull();
  });

  it('after the gap, a batch that is only urgent or re-sent messages does not count against it; one paced message makes it count', () => {
    expect(planDispatch([row(1, 'u', { urgent: true }), row(2, 'r', { reservedBefore: true })], 0, GAP * 2, GAP)!.pacing).toBeNull();
    expect(planDispatch([row(1, 'u', { urgent: true }), row(2, 'p')], 0, GAP * 2, GAP)!.pacing).toEqual({ previous: 0, at: GAP * 2 });
  });

  it('a gap of 0 lets everything go every time', () => {
    expect(planDispatch([row(1, 'a'), row(2, 'b')], 500, 500, 0)).toMatchObject({ body: 'a\n\nb', pacing: { previous: 500, at: 500 } });
  });

  it('each plan has its own token', () => {
    const tokens = new Set(Array.from({ length: 5 }, () => planDispatch([row(1, 'a')], null, 0, GAP)!.token));
    expect(tokens.size).toBe(5);
  });
});
