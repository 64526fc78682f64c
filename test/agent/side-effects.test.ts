/**
 * The tool loop and the ledger of side effects (contract/effects.ts): a
 * toolAgent with a scripted model and a side-effect tool, crashed inside the
 * call by the testing kit ('in-effect'). The next run never calls the tool
 * again on its own: the model hears of the unknown call, and calling it
 * again is refused until it is settled, by the agent after checking or by a
 * person's answer to "did this happen?".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, defineTool, toolAgent, type Agent, type AgentContext, type Model, type ModelReply, type Turn } from '../../src/index.js';
import { crashingStore, runOnce, throwawayStore, type ThrowawayStore } from '../../src/testing/index.js';

const LEASE_TTL = 30_000;
const opened: ThrowawayStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((kit) => kit.close()));
});

async function kit(): Promise<ThrowawayStore> {
  const made = await throwawayStore({ leaseTtlMs: LEASE_TTL, retryBackoff: { baseMs: 0 }, outboxGapMs: 0 });
  opened.push(made);
  return made;
}

/** A model that answers from a script and remembers every history it was shown. */
class ScriptedModel implements Model {
  readonly name = 'scripted';
  readonly seen: Turn[][] = [];
  constructor(private readonly script: (() => ModelReply)[]) {}

  async step(history: readonly Turn[]): Promise<ModelReply> {
    this.seen.push(structuredClone([...history]));
    const next = this.script.shift();
    if (next === undefined) throw new Error('the script ran out');
    return next();
  }
}

const say = (text: string) => (): ModelReply => ({ turn: { role: 'assistant', content: [{ type: 'text', text }] }, stopReason: 'end_turn' });
const refund42 = (): ModelReply => ({ turn: { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'refund', input: { order: '42' } }] }, stopReason: 'tool_use' });

/** A payment API that applies each idempotency key once, and the side-effect tool that calls it. */
function payments() {
  const applied = new Set<string>();
  const calls: string[] = [];
  const refund = defineTool<{ order: string }>({
    name: 'refund',
    description: 'Refund an order',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    sideEffect: true,
    run: async (input, call) => {
      calls.push(call.idempotencyKey);
      applied.add(call.idempotencyKey);
      return { refunded: input.order };
    },
  });
  return { applied, calls, refund };
}

function loop(model: Model, refund: ReturnType<typeof payments>['refund']): Agent {
  return toolAgent({ model, tools: [refund], permissions: { refund: 'allow' } });
}

/** Crashes a run of `agent` inside its refund call, and lets the lease lapse: the call is unknown. */
async function crashInEffect(k: ThrowawayStore, agent: Agent): Promise<void> {
  await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
  const crashing = crashingStore(k.store, { at: 'in-effect', inbox: 'shop' });
  const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock: k.clock });
  expect(a.outcome).toBe('crashed');
  k.clock.advance(LEASE_TTL + 1);
}

describe('toolAgent and the ledger of side effects', () => {
  it("after a crash in the call, the next run does not run it again: the model hears of it, and its retry is refused as 'unknown'", async () => {
    const k = await kit();
    const api = payments();
    await crashInEffect(k, loop(new ScriptedModel([refund42]), api.refund));
    const [unknown] = await k.store.inbox('shop').effects();
    expect(unknown).toMatchObject({ tool: 'refund', input: { order: '42' }, state: 'started', unknown: true });

    const model = new ScriptedModel([refund42, say('I could not confirm the refund; someone will check.')]);
    const b = await runOnce({ store: k.store, inbox: 'shop', agent: loop(model, api.refund), holder: 'B', clock: k.clock });
    expect(b.runs.map((run) => run.outcome)).toEqual(['messages']);
    expect(api.calls).toEqual([]); // neither the crashed run (it died first) nor the retry ran it
    const firstTurn = model.seen[0]![0]!.content;
    expect(firstTurn[0]).toMatchObject({ type: 'text', text: expect.stringContaining('refund {"order":"42"}') });
    expect(model.seen[1]!.at(-1)!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'u1', content: expect.stringContaining('Not done: this call may already have happened'), is_error: true },
    ]);
    expect(b.runs[0]!.decisions).toMatchObject([{ tool: 'refund', decision: 'allow' }]);
    expect((await k.store.inbox('shop').effects()).map((e) => e.key)).toEqual([unknown!.key]);
  });

  it('the agent settles it after checking the API under the key; running it again with that key is then its decision', async () => {
    const k = await kit();
    const api = payments();
    await crashInEffect(k, loop(new ScriptedModel([refund42]), api.refund));
    const inner = loop(new ScriptedModel([refund42, say('Refunded order 42.')]), api.refund);
    const seen: unknown[] = [];
    const checking = defineAgent({
      name: 'checking',
      tools: inner.tools,
      permissions: inner.permissions,
      async run(ctx: AgentContext) {
        for (const effect of await ctx.unknownEffects()) {
          seen.push(effect);
          await ctx.settleEffect(effect.key, api.applied.has(effect.key) ? 'confirmed' : 'failed');
        }
        return inner.run(ctx);
      },
    });
    const b = await runOnce({ store: k.store, inbox: 'shop', agent: checking, holder: 'B', clock: k.clock });
    expect(b.runs.map((run) => run.outcome)).toEqual(['messages']);
    expect(seen).toMatchObject([{ tool: 'refund', input: { order: '42' }, at: expect.any(Number) }]);
    // The API never saw the key, so it was settled failed, and the model's call (the same key) ran once.
    expect(api.calls).toHaveLength(1);
    const rows = await k.store.inbox('shop').effects({ which: 'all' });
    expect(rows).toMatchObject([{ state: 'confirmed', unknown: false }]);
    expect(rows[0]!.key).toBe(api.calls[0]);
  });

  for (const [answer, state] of [
    ['yes', 'confirmed'],
    ['no', 'failed'],
  ] as const) {
    it(`"did this happen?": ${answer} settles it ${state} before the run the answer wakes`, async () => {
      const k = await kit();
      const api = payments();
      await crashInEffect(k, loop(new ScriptedModel([refund42]), api.refund));
      const inbox = k.store.inbox('shop');
      const seenInRun: unknown[][] = [];
      const asking = defineAgent({
        name: 'asking',
        tools: [api.refund],
        permissions: { refund: 'allow' },
        async run(ctx: AgentContext) {
          const unknown = await ctx.unknownEffects();
          seenInRun.push(unknown);
          if (unknown.length === 0) return { nothing: true };
          const asked = await ctx.askAboutEffect(unknown[0]!.key, { expiresInMs: 60_000 });
          return { messages: [asked.message] };
        },
      });
      const link = (l: { approvalId: string }) => `https://vigil.test/a/${l.approvalId}`;
      const b = await runOnce({ store: k.store, inbox: 'shop', agent: asking, holder: 'B', clock: k.clock, approvalLink: link });
      expect(b.runs.map((run) => run.outcome)).toEqual(['messages']);
      const [key] = (await inbox.effects()).map((e) => e.key);
      expect((await inbox.stats()).approvalsPending).toBe(1);
      const sent: { body: string; urgent: boolean }[] = [];
      await inbox.dispatch((_body, messages) => void sent.push(...messages.map((m) => ({ body: m.body, urgent: m.urgent }))));
      expect(sent).toEqual([{ body: `Did this happen? refund {"order":"42"}\nhttps://vigil.test/a/effect-${key}`, urgent: true }]);

      expect(await inbox.answerApproval(`effect-${key}`, answer)).toBe(answer);
      const c = await runOnce({ store: k.store, inbox: 'shop', agent: asking, holder: 'B', clock: k.clock, approvalLink: link });
      expect(c.runs.map((run) => run.outcome)).toEqual(['nothing']);
      expect(seenInRun.at(-1)).toEqual([]); // settled before the agent ran
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ key, state, unknown: false }]);
      expect(api.calls).toEqual([]);
    });
  }

  it("a call the policy asks about is intended with the question, started when the approved call runs, confirmed with that run's finish", async () => {
    const k = await kit();
    const api = payments();
    const model = new ScriptedModel([refund42, say('Refunded order 42.')]);
    const agent = toolAgent({ model, tools: [api.refund], permissions: { refund: { ask: { expiresInMs: 60_000 } } } });
    const inbox = k.store.inbox('shop');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    const asked = await runOnce({ store: k.store, inbox: 'shop', agent, holder: 'A', clock: k.clock });
    const approvalId = asked.runs[0]!.decisions![0]!.approvalId!;
    expect(await inbox.effects({ which: 'all' })).toMatchObject([{ tool: 'refund', input: { order: '42' }, state: 'intended', startedAt: null, unknown: false }]);
    k.clock.advance(1_000);
    expect(await inbox.answerApproval(approvalId, 'yes')).toBe('yes');
    await runOnce({ store: k.store, inbox: 'shop', agent, holder: 'A', clock: k.clock });
    expect(api.calls).toHaveLength(1);
    const [row] = await inbox.effects({ which: 'all' });
    // One row: the intent was recorded under the very key the approved call ran with.
    expect(row).toMatchObject({ key: api.calls[0], state: 'confirmed' });
    expect(row!.startedAt! - row!.intendedAt).toBe(1_000);
  });

  it('a run that lost its lease does not start the call: the tool does not run, nothing is recorded, the run is refused as a lost lease', async () => {
    const k = await kit();
    const api = payments();
    const agent = defineAgent({
      tools: [api.refund],
      permissions: { refund: 'allow' },
      async run(ctx: AgentContext) {
        // The run stalls past its lease and another worker takes the inbox over.
        k.clock.advance(LEASE_TTL + 1);
        await k.store.inbox('shop').acquire('B');
        await ctx.tools.call('refund', { order: '42' });
        return { messages: ['refunded'] };
      },
    });
    await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm1' });
    const a = await runOnce({ store: k.store, inbox: 'shop', agent, holder: 'A', clock: k.clock });
    expect(a.runs.map((run) => run.outcome)).toEqual(['refused']);
    expect(a.runs[0]!.error).toMatch(/lost its lease/);
    expect(api.calls).toEqual([]);
    expect(await k.store.inbox('shop').effects({ which: 'all' })).toEqual([]);
  });

  it('askAboutEffect and settleEffect on a key that is not unknown: not_unknown, nothing asked or changed', async () => {
    const k = await kit();
    const api = payments();
    const errors: unknown[] = [];
    const agent = defineAgent({
      tools: [api.refund],
      permissions: { refund: 'allow' },
      async run(ctx: AgentContext) {
        await ctx.tools.call('refund', { order: '42' });
        for (const attempt of [() => ctx.settleEffect('nope', 'confirmed'), () => ctx.askAboutEffect('nope')]) {
          errors.push(await attempt().catch((error: unknown) => (error as { code?: string }).code));
        }
        return { nothing: true };
      },
    });
    await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm1' });
    await runOnce({ store: k.store, inbox: 'shop', agent, holder: 'A', clock: k.clock });
    expect(errors).toEqual(['not_unknown', 'not_unknown']);
    expect((await k.store.inbox('shop').stats()).approvalsPending).toBe(0);
    expect(await k.store.inbox('shop').effects({ which: 'all' })).toMatchObject([{ state: 'confirmed' }]);
  });
});

describe('ToolBox.runGranted: calls a policy elsewhere let through (the Claude Agent SDK adapter) go through the ledger too', () => {
  /** An agent that runs the refund as claudeAgentSdk's tool server does: granted by its hook, under the key the hook gave. */
  function granted(refund: ReturnType<typeof payments>['refund'], outcomes: unknown[]): Agent {
    return defineAgent({
      name: 'granted',
      tools: [refund],
      permissions: { refund: 'allow' },
      run: async (ctx: AgentContext) => {
        outcomes.push(await ctx.tools.runGranted('refund', { order: '42' }, { idempotencyKey: 'refund-42', approvalId: null }));
        return { nothing: true };
      },
    });
  }

  it('a call a crash left unknown is refused, not run again, until it is settled; a confirmed one is not run twice', async () => {
    const k = await kit();
    const api = payments();
    const outcomes: unknown[] = [];
    await crashInEffect(k, granted(api.refund, outcomes));
    expect(await k.store.inbox('shop').effects()).toMatchObject([{ key: 'refund-42', unknown: true }]);
    const before = [...api.calls];
    await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm2', payload: { text: 'again' } });
    await runOnce({ store: k.store, inbox: 'shop', agent: granted(api.refund, outcomes), holder: 'B', clock: k.clock });
    expect(outcomes.at(-1)).toMatchObject({ status: 'unknown', key: 'refund-42' });
    expect(api.calls).toEqual(before); // not run again

    await k.store.inbox('shop').settleEffect('refund-42', 'confirmed');
    await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm3', payload: { text: 'and again' } });
    await runOnce({ store: k.store, inbox: 'shop', agent: granted(api.refund, outcomes), holder: 'B', clock: k.clock });
    expect(outcomes.at(-1)).toMatchObject({ status: 'denied' });
    expect(api.calls).toEqual(before);
  });

  it('a fresh call is started before it runs and confirmed with the finish', async () => {
    const k = await kit();
    const api = payments();
    const outcomes: unknown[] = [];
    await k.store.inbox('shop').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund' } });
    await runOnce({ store: k.store, inbox: 'shop', agent: granted(api.refund, outcomes), clock: k.clock });
    expect(outcomes).toEqual([{ status: 'ok', output: { refunded: '42' } }]);
    expect(await k.store.inbox('shop').effects({ which: 'all' })).toMatchObject([{ key: 'refund-42', state: 'confirmed' }]);
  });
});
