/**
 * Approvals that remind, through the runtime's own turn (runOnce) on a real
 * SQLite store with a fake clock: a toolAgent whose tool is `ask` gets one
 * urgent reminder with the question's link, at the share of the approval's
 * life, once, sent by the runtime without calling the model; none after
 * the answer; none when the policy says null; the config default applies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, toolAgent, type Model, type ModelReply, type Permissions, type Store } from '../../src/index.js';
import { crashingStore, runOnce, throwawayStore, type CrashPoint, type ThrowawayStore } from '../../src/testing/index.js';
import type { ApprovalLink } from '../../src/agent/approval-summary.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A model that asks to refund order 42 once, then says it is done; counts its steps. */
class RefundModel implements Model {
  readonly name = 'refund-model';
  steps = 0;
  async step(): Promise<ModelReply> {
    this.steps += 1;
    if (this.steps === 1) {
      return { turn: { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'refund', input: { order: '42' } }] }, stopReason: 'tool_use' };
    }
    return { turn: { role: 'assistant', content: [{ type: 'text', text: 'Refunded.' }] }, stopReason: 'end_turn' };
  }
}

const refund = defineTool<{ order: string }>({
  name: 'refund',
  description: 'Refund an order',
  inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  summary: (input) => `Refund order ${input.order}`,
  run: async (input) => ({ refunded: input.order }),
});

// Everything the signature binds, so a link made from other data is a different link.
const approvalLink = (link: ApprovalLink): string => `https://vigil.test/a/${link.inboxId}/${link.approvalId}?exp=${link.expiresAt}&q=${encodeURIComponent(link.summary ?? '')}`;

let kit: ThrowawayStore | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

const LEASE_TTL = 30_000;

async function setup(permissions: Permissions) {
  kit = await throwawayStore({ outboxGapMs: 0, leaseTtlMs: LEASE_TTL });
  const model = new RefundModel();
  const agent = toolAgent({ model, tools: [refund], permissions });
  const turn = (approvalRemindAt?: number | null) => runOnce({ store: kit!.store, inbox: 'alice', agent, clock: kit!.clock, approvalLink, ...(approvalRemindAt === undefined ? {} : { approvalRemindAt }) });
  return { store: kit.store, clock: kit.clock, model, turn };
}

function approvalIdIn(text: string): string {
  return /\/a\/alice\/(tool-[^?]+)\?/.exec(text)![1]!;
}

async function held(store: Store): Promise<{ body: string; urgent: boolean }[]> {
  const out: { body: string; urgent: boolean }[] = [];
  await store.inbox('alice').dispatch((_body, messages) => void out.push(...messages.map((m) => ({ body: m.body, urgent: m.urgent }))));
  return out;
}

describe('approvals that remind, on the runtime', () => {
  it('one urgent reminder with the same link at 75% of the approval\'s life, once, without calling the model', async () => {
    const { store, clock, model, turn } = await setup({ refund: { ask: { expiresInMs: HOUR } } });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await turn();
    const [question] = await held(store);
    expect(question!.urgent).toBe(true);
    const link = question!.body.split('\n')[1]!;
    expect(link).toMatch(/^https:\/\/vigil\.test\/a\/alice\/tool-/);

    clock.advance(45 * MINUTE - 1);
    await turn();
    expect(await held(store)).toEqual([]);

    clock.advance(1);
    const heard: unknown[] = [];
    const stop = store.events.on('approval:reminded', (e) => void heard.push(e));
    const reminded = await turn();
    stop();
    expect(reminded.runs).toEqual([]); // no run of the agent: the runtime finished the reminder itself
    expect(model.steps).toBe(1);
    const [reminder, ...more] = await held(store);
    expect(more).toEqual([]);
    expect(reminder!.urgent).toBe(true);
    expect(reminder!.body).toMatch(/^Reminder: /);
    expect(reminder!.body).toContain('Refund order 42');
    expect(reminder!.body.split('\n')[1]).toBe(link);
    expect(heard).toEqual([{ inboxId: 'alice', approvalId: approvalIdIn(link), sent: true }]);

    // Once: later turns send nothing more; the answer still runs the tool.
    clock.advance(5 * MINUTE);
    await turn();
    expect(await held(store)).toEqual([]);
    expect(await inbox.answerApproval(approvalIdIn(link), 'yes')).toBe('yes');
    await turn();
    expect(await held(store)).toEqual([{ body: 'Refunded.', urgent: false }]);
  });

  it('not after the answer: answered before the share, no reminder ever goes out', async () => {
    const { store, clock, turn } = await setup({ refund: { ask: { expiresInMs: HOUR } } });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await turn();
    const approvalId = approvalIdIn((await held(store))[0]!.body);
    clock.advance(10 * MINUTE);
    expect(await inbox.answerApproval(approvalId, 'no')).toBe('no');
    await turn();
    await held(store);
    clock.advance(50 * MINUTE);
    await turn();
    expect(await held(store)).toEqual([]);
  });

  it('a reminder stored before the answer but handled after it finishes with no message', async () => {
    const { store, clock, turn } = await setup({ refund: { ask: { expiresInMs: HOUR } } });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await turn();
    const approvalId = approvalIdIn((await held(store))[0]!.body);
    clock.advance(45 * MINUTE);
    expect(await inbox.runScheduler()).toBe(1); // the reminder is stored, not yet handled
    expect(await inbox.answerApproval(approvalId, 'yes')).toBe('yes');
    const heard: unknown[] = [];
    const stop = store.events.on('approval:reminded', (e) => void heard.push(e));
    await turn();
    stop();
    expect(await held(store)).toEqual([{ body: 'Refunded.', urgent: false }]);
    expect(await inbox.getEvent('approval-reminder', approvalId)).toMatchObject({ status: 'done' });
    expect(heard).toEqual([{ inboxId: 'alice', approvalId, sent: false }]);
  });

  it("the tool's remindAt wins over the default, and null turns the reminder off", async () => {
    const early = await setup({ refund: { ask: { expiresInMs: HOUR, remindAt: 0.5 } } });
    await early.store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await early.turn();
    await held(early.store);
    early.clock.advance(30 * MINUTE);
    await early.turn();
    expect((await held(early.store)).map((m) => m.body.split('\n')[0])).toEqual([expect.stringMatching(/^Reminder: /)]);
    await kit!.close();

    const never = await setup({ refund: { ask: { expiresInMs: HOUR, remindAt: null } } });
    await never.store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await never.turn(0.1);
    await held(never.store);
    never.clock.advance(59 * MINUTE);
    await never.turn(0.1);
    expect(await held(never.store)).toEqual([]);
  });

  it("the service's default share applies to a tool that names none", async () => {
    const { store, clock, turn } = await setup({ refund: { ask: { expiresInMs: HOUR } } });
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await turn(0.1);
    await held(store);
    clock.advance(6 * MINUTE);
    await turn(0.1);
    expect(await held(store)).toHaveLength(1);
  });

  it.each<CrashPoint>(['after-claim', 'before-finish', 'in-finish', 'after-finish'])(
    'a worker killed at %s while it sends the reminder: the next turn leaves exactly one reminder queued',
    async (at) => {
      const { store, clock, model, turn } = await setup({ refund: { ask: { expiresInMs: HOUR } } });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
      await turn();
      await held(store);
      clock.advance(45 * MINUTE);
      const crashing = crashingStore(store, { at, inbox: 'alice', when: (site) => site.events.some((e) => e.source === 'approval-reminder') });
      const agent = toolAgent({ model, tools: [refund], permissions: { refund: { ask: { expiresInMs: HOUR } } } });
      const first = await runOnce({ store: crashing, inbox: 'alice', agent, holder: 'A', clock, approvalLink });
      expect(first.outcome).toBe('crashed');
      clock.advance(LEASE_TTL + 1);
      await runOnce({ store: crashing, inbox: 'alice', agent, holder: 'B', clock, approvalLink });
      const reminders = (await held(store)).filter((m) => m.body.startsWith('Reminder: '));
      expect(reminders).toHaveLength(1);
      expect(model.steps).toBe(1);
    },
  );
});
