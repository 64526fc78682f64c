/** The scheduler's plan (engine/scheduler.ts): the events and timer advances of one pass, and the payload each occurrence's event carries. */
import { describe, expect, it } from 'vitest';
import type { DueTimer } from '../../src/store/engine/port.js';
import { occurrencePayload, planSchedulerPass } from '../../src/store/engine/scheduler.js';

describe('occurrencePayload', () => {
  it.each([
    ['an empty payload', {}],
    ['plain fields', { kind: 'digest', n: 3, nested: { a: [1, 2] } }],
    ['keys JavaScript puts first (integer-like)', { b: 1, 2: 'two', 1: 'one' }],
    ['a field the occurrence overrides', { scheduledFor: 'mine', other: true }],
    ['a value that mentions a field name', { note: 'see "lateBy" below' }],
    ['text that needs escaping', { text: 'é "quoted" \\ \n ✓' }],
  ])('%s: exactly JSON.stringify({ ...payload, scheduledFor, lateBy, skipped })', (_name, payload) => {
    const json = JSON.stringify(payload);
    expect(occurrencePayload(json, 1_000, 25, 3)).toBe(JSON.stringify({ ...(JSON.parse(json) as object), scheduledFor: 1_000, lateBy: 25, skipped: 3 }));
  });
});

describe('planSchedulerPass', () => {
  const timer = (over: Partial<DueTimer>): DueTimer => ({ id: 't', due: 1_000, every: null, cron: null, tz: null, missed: 'each', payloadJson: '{}', key: null, ...over });

  it('one event per occurrence and one advance per timer, with the skipped count of its last occurrence', () => {
    const plan = planSchedulerPass(
      [
        timer({ id: 'once', key: { source: 'reminder', sourceId: 'r1' }, payloadJson: '{"note":"x"}' }),
        timer({ id: 'each', every: 100, missed: 'each' }),
        timer({ id: 'coalesce', every: 100, missed: 'coalesce' }),
      ],
      [],
      1_250,
    );
    expect(plan.timers).toEqual([
      { id: 'once', nextDue: null, lastSkipped: 0 },
      { id: 'each', nextDue: 1_300, lastSkipped: 0 },
      { id: 'coalesce', nextDue: 1_300, lastSkipped: 2 },
    ]);
    expect(plan.events.map((e) => [e.source, e.sourceId, JSON.parse(e.payloadJson)])).toEqual([
      ['reminder', 'r1', { note: 'x', scheduledFor: 1_000, lateBy: 250, skipped: 0 }],
      ...[1_000, 1_100, 1_200].map((at) => ['timer', `each@${at}`, { scheduledFor: at, lateBy: 1_250 - at, skipped: 0 }]),
      ['timer', 'coalesce@1200', { scheduledFor: 1_200, lateBy: 50, skipped: 2 }],
    ]);
    expect(plan.expiredApprovals).toEqual([]);
  });

  it("a reminder fires from its time until just before its approval's deadline, as an ('approval-reminder', id) event; an expiry in the same pass wins", () => {
    const reminder = (id: string, remindAt: number, expiresAt: number) => ({ id, actionJson: '{"tool":"refund"}', remindAt, expiresAt });
    const plan = planSchedulerPass([], [{ id: 'gone', actionJson: '"x"', expiresAt: 900 }], 1_000, [
      reminder('due', 1_000, 2_000),
      reminder('late', 500, 1_001),
      reminder('early', 1_001, 2_000),
      reminder('at-deadline', 500, 1_000),
      reminder('gone', 100, 900),
    ]);
    expect(plan.remindedApprovals).toEqual(['due', 'late']);
    expect(plan.expiredApprovals).toEqual(['gone']);
    expect(plan.events.filter((e) => e.source === 'approval-reminder')).toEqual([
      { source: 'approval-reminder', sourceId: 'due', payloadJson: JSON.stringify({ approval: 'due', action: { tool: 'refund' }, remindAt: 1_000, expiresAt: 2_000 }) },
      { source: 'approval-reminder', sourceId: 'late', payloadJson: JSON.stringify({ approval: 'late', action: { tool: 'refund' }, remindAt: 500, expiresAt: 1_001 }) },
    ]);
  });

  it('nothing due plans nothing', () => {
    expect(planSchedulerPass([], [], 1_000)).toEqual({ events: [], timers: [], expiredApprovals: [], remindedApprovals: [] });
  });
});
