/** Retention's pure parts (engine/lifecycle.ts): the cutoffs at a transaction's now, one prune's budget across the kinds, and "keeps everything". */
import { describe, expect, it } from 'vitest';
import { keepsEverything, PruneBudget, pruneCutoffs } from '../../src/store/engine/lifecycle.js';

const NONE = { doneEventsMs: null, deadEventsMs: null, sentMessagesMs: null, answeredApprovalsMs: null, actionsMs: null, settledEffectsMs: null, usageMs: null };

describe('pruneCutoffs', () => {
  it('a kind with a retention is cut at now minus it; a kind without one (null) has no cutoff at all, not now', () => {
    expect(pruneCutoffs({ ...NONE, doneEventsMs: 0, sentMessagesMs: 1_000 }, 5_000)).toEqual({
      doneEvents: 5_000,
      deadEvents: null,
      sentMessages: 4_000,
      answeredApprovals: null,
      actions: null,
      settledEffects: null,
      usage: null,
    });
    expect(pruneCutoffs({ doneEventsMs: 1, deadEventsMs: 2, sentMessagesMs: 3, answeredApprovalsMs: 4, actionsMs: 5, settledEffectsMs: 6, usageMs: 7 }, 100)).toEqual({
      doneEvents: 99,
      deadEvents: 98,
      sentMessages: 97,
      answeredApprovals: 96,
      actions: 95,
      settledEffects: 94,
      usage: 93,
    });
  });
});

describe('PruneBudget', () => {
  it('each kind gets what the ones before it left; a kind that used all it was given may have more', () => {
    const budget = new PruneBudget(10);
    expect(budget.next).toBe(10);
    budget.took('events', 3, budget.next);
    expect(budget.next).toBe(7);
    expect(budget.result.more).toBe(false);
    budget.took('messages', 7, budget.next);
    expect(budget.next).toBe(0);
    expect(budget.result.more).toBe(true);
    budget.took('approvals', 0, budget.next);
    budget.took('actions', 0, budget.next);
    budget.took('usage', 0, budget.next);
    expect(budget.result).toEqual({ events: 3, messages: 7, approvals: 0, actions: 0, effects: 0, usage: 0, more: true });
  });

  it('a transaction that removed less than every kind was given has no more', () => {
    const budget = new PruneBudget(5);
    for (const kind of ['events', 'messages', 'approvals', 'actions'] as const) budget.took(kind, 1, budget.next);
    expect(budget.next).toBe(1);
    expect(budget.result).toEqual({ events: 1, messages: 1, approvals: 1, actions: 1, effects: 0, usage: 0, more: false });
  });
});

describe('keepsEverything', () => {
  it('is true only when no kind has a retention', () => {
    expect(keepsEverything(NONE)).toBe(true);
    expect(keepsEverything({ ...NONE, actionsMs: 0 })).toBe(false);
    expect(keepsEverything({ ...NONE, doneEventsMs: 86_400_000 })).toBe(false);
  });
});
