/**
 * The soak's bookkeeping is not vacuous: the ledger tells a lost reply, a
 * repeated delivery and an event done twice apart (the first and last fail
 * a run), and the phase plan leaves the fault-free minutes the horizon
 * check needs. The soak itself (npm run soak) is not part of the suite.
 */
import { describe, expect, it } from 'vitest';
import { Ledger, quantile } from '../../bench/soak/ledger.js';
import { phaseAt, phasePlan } from '../../bench/soak/phases.js';

const reply = (seq: number): string => JSON.stringify({ seq, t: 1_000, inbox: 'u0000' });

describe('Ledger', () => {
  it('tells a lost reply, the same message again and a second message for one event apart', () => {
    const ledger = new Ledger();
    for (let seq = 0; seq < 4; seq++) {
      ledger.offer(seq, 1_000);
      ledger.stored(seq, { duplicate: false, afterFailure: false });
    }
    ledger.delivered(1_100, [
      { id: 10, body: reply(0) },
      { id: 11, body: reply(1) },
    ]);
    ledger.delivered(1_200, [{ id: 10, body: reply(0) }]); // at-least-once: the same batch again
    ledger.delivered(1_300, [{ id: 12, body: reply(1) }]); // a second finish's reply: done twice
    ledger.delivered(1_400, [{ id: 13, body: reply(2) }]);
    ledger.delivered(1_400, [{ id: 99, body: JSON.stringify({ seq: 50, t: 0 }) }]); // never offered

    const verdict = ledger.verdict();
    expect(verdict).toMatchObject({ stored: 4, delivered: 3, notDelivered: 1, notDeliveredSample: [3], doneTwice: 1, doneTwiceSample: [1] });
    expect(verdict).toMatchObject({ duplicateDeliveries: 1, deliveredMoreThanOnce: 2, strangers: 1 });
    // Latency counts each event's first delivery only.
    expect(ledger.takeWindow().latencies).toEqual([100, 100, 400]);
  });

  it('a duplicate ingest is ours to explain only when no attempt failed before it', () => {
    const ledger = new Ledger();
    ledger.offer(0, 0);
    ledger.stored(0, { duplicate: true, afterFailure: true }); // the failed attempt had committed
    ledger.offer(1, 0);
    ledger.stored(1, { duplicate: true, afterFailure: false });
    expect(ledger.verdict().unexpectedDuplicates).toBe(1);
  });

  it('quantiles by nearest rank', () => {
    expect(quantile([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(quantile(Array.from({ length: 100 }, (_, i) => i + 1), 0.99)).toBe(99);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('phasePlan', () => {
  it('shares the minutes by weight after the warm-up, with three fault-free minutes after the horizon at 30', () => {
    const phases = phasePlan(30, 'postgres', 30_000);
    expect(phases.map((p) => p.name)).toEqual(['warmup', 'steady', 'surge', 'horizon', 'after-horizon', 'kills', 'recovery']);
    expect(phases[phases.length - 1]!.endMs).toBe(30_000 + 30 * 60_000);
    const after = phases.find((p) => p.name === 'after-horizon')!;
    expect(after.endMs - after.startMs).toBe(3 * 60_000);
    expect(phases.find((p) => p.name === 'surge')!.rateFactor).toBe(1.5);
    phases.slice(1).forEach((p, i) => expect(p.startMs).toBe(phases[i]!.endMs));
    expect(phaseAt(phases, 0)).toBe('warmup');
    expect(phaseAt(phases, 31 * 60_000)).toBe('drain');
  });

  it('on SQLite the horizon phase is steady load, and says why', () => {
    const horizon = phasePlan(10, 'sqlite', 0).find((p) => p.name === 'horizon')!;
    expect(horizon.fault).toBe('none');
    expect(horizon.skipped).toMatch(/no xmin horizon/);
  });
});
