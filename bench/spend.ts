/**
 * The spend family (issue 51): what recording a run's model usage and
 * judging the person's budget costs the one-event run cycle. Goal: at most
 * 1.1x the same cycle without either.
 *
 * The cycle is one turn of the runtime (the testing kit's runOnce: the
 * scheduler pass, acquireAndClaim, the agent, finishAndClaim) on an inbox
 * that holds one fresh event, timed from the turn's start to its end; the
 * ingest before it is not timed. Both sides run toolAgent on a model that
 * answers at once, two inboxes per store, side by side: "plain", whose
 * model reports no usage and which has no budget, and "spend", whose model
 * reports one step's usage by a model id the price table knows (priced,
 * recorded with the finish) and whose person has a budget on every figure
 * (generous enough never to pause it, so each cycle pays the pricing, the
 * run's cap read and the judgement after the finish, not a pause). Rounds alternate the two, so load from other processes falls on
 * both alike; the ratio is the median of the per-round ratios of medians.
 * SQLite (a file, synchronous full, as `vigil serve`), then PostgreSQL (a
 * throwaway server unless DATABASE_URL is set).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore, toolAgent, type Agent, type Model, type Store, type Usage } from '../src/index.js';
import { runOnce } from '../src/testing/index.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { describeMachine, type Machine } from './machine.js';
import { openBenchServer } from './postgres-server.js';
import { median } from './timing.js';

export const SPEND_FAMILY = 'spend';
const HEADING = '## Spend';
const GOAL = 1.1;

interface Plan {
  rounds: number;
  /** Timed cycles per side per round (after one untimed warm-up cycle each). */
  cycles: number;
}

const FULL: Plan = { rounds: 8, cycles: 60 };
const QUICK: Plan = { rounds: 2, cycles: 10 };

/** Never reached by the cycles: every run is judged and capped, none is paused. */
const BUDGET = { tokensPerDay: 1_000_000_000_000, costPerDayUsd: 1_000_000, costPerMonthUsd: 10_000_000, minimumLeftUsd: 0.01 };

/** A model that answers at once: the cycle times Vigil's work around the model, not a model. */
function instantModel(usage: Usage | undefined): Model {
  return {
    name: usage === undefined ? 'instant' : 'instant-metered',
    step: async () => ({ turn: { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, stopReason: 'end_turn', ...(usage === undefined ? {} : { usage }) }),
  };
}

/** toolAgent on a model that reports no usage: nothing recorded, no budget read. */
const plainAgent: Agent = toolAgent({ model: instantModel(undefined) });

/** toolAgent on a model that reports one step's usage by a model id the price table knows: priced, recorded, judged. */
const spendAgent: Agent = toolAgent({
  model: instantModel({ inputTokens: 1_200, outputTokens: 300, cacheReadTokens: 800, model: 'claude-sonnet-4-5' }),
});

interface Side {
  label: 'plain' | 'usage' | 'spend';
  inbox: string;
  agent: Agent;
}

/** "usage" is "spend" without the budget: the two parts of the cost apart. */
const SIDES: Side[] = [
  { label: 'plain', inbox: 'plain-person', agent: plainAgent },
  { label: 'usage', inbox: 'usage-person', agent: spendAgent },
  { label: 'spend', inbox: 'spend-person', agent: spendAgent },
];

interface BackendResult {
  backend: string;
  plainMs: number;
  usageMs: number;
  spendMs: number;
  usageRatio: number;
  ratio: number;
  cycles: number;
}

export async function runSpendFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const plan = options.quick ? QUICK : FULL;
  const started = performance.now();
  const results: BackendResult[] = [];

  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-spend-'));
  let machine: Machine;
  try {
    machine = describeMachine(dir);
    const store = await openStore(`sqlite:${dir}`, { synchronous: 'full' });
    try {
      results.push(await measure('SQLite (a file per inbox, synchronous full)', store, plan, options.log));
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const server = await openBenchServer();
  try {
    const store = await openStore(`${server.url}${server.url.includes('?') ? '&' : '?'}schema=bench_spend`);
    try {
      results.push(await measure(`PostgreSQL ${server.settings.server_version ?? ''} (${server.origin})`, store, plan, options.log));
    } finally {
      await store.close();
    }
  } finally {
    await server.stop();
  }

  const met = results.every((r) => r.ratio <= GOAL);
  const section = report(results, plan, machine, (performance.now() - started) / 1000, met);
  if (options.out !== null) writeBenchmarkSection(options.out, HEADING, section);
  options.log(section);
  return met;
}

async function measure(backend: string, store: Store, plan: Plan, log: (line: string) => void): Promise<BackendResult> {
  await store.inbox('spend-person').updateSettings({ budget: BUDGET });
  await store.inbox('usage-person').updateSettings({ timeZone: 'UTC' });
  await store.inbox('plain-person').updateSettings({ timeZone: 'UTC' });
  let n = 0;
  const cycle = async (side: Side): Promise<number> => {
    n += 1;
    await store.inbox(side.inbox).ingest({ source: 'chat', sourceId: `m-${n}`, payload: { text: 'hello' } });
    const t0 = performance.now();
    const turn = await runOnce({ store, inbox: side.inbox, agent: side.agent });
    const ms = performance.now() - t0;
    if (turn.runs.length !== 1 || turn.runs[0]!.outcome !== 'messages') throw new Error(`${side.label}: the cycle did not run once: ${JSON.stringify(turn.runs)}`);
    return ms;
  };
  for (const side of SIDES) await cycle(side); // warm-up: statements prepared, files open

  const ratios: number[] = [];
  const usageRatios: number[] = [];
  const all: Record<Side['label'], number[]> = { plain: [], usage: [], spend: [] };
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    const medians: Partial<Record<Side['label'], number>> = {};
    for (const side of order) {
      const times: number[] = [];
      for (let i = 0; i < plan.cycles; i++) times.push(await cycle(side));
      medians[side.label] = median(times);
      all[side.label].push(...times);
    }
    ratios.push(medians.spend! / medians.plain!);
    usageRatios.push(medians.usage! / medians.plain!);
    log(`spend ${backend} round ${round + 1}: plain ${medians.plain!.toFixed(3)} ms, usage ${medians.usage!.toFixed(3)} ms, usage + budget ${medians.spend!.toFixed(3)} ms`);
  }
  const stats = await store.inbox('spend-person').stats();
  if (stats.events.done !== plan.rounds * plan.cycles + 1) throw new Error(`spend: ${stats.events.done} events done, expected ${plan.rounds * plan.cycles + 1}`);
  return {
    backend,
    plainMs: median(all.plain),
    usageMs: median(all.usage),
    spendMs: median(all.spend),
    usageRatio: median(usageRatios),
    ratio: median(ratios),
    cycles: plan.rounds * plan.cycles,
  };
}

function report(results: BackendResult[], plan: Plan, machine: Machine, seconds: number, met: boolean): string {
  const rows = results.map(
    (r) =>
      `| ${r.backend} | ${r.cycles} | ${r.plainMs.toFixed(3)} | ${r.usageMs.toFixed(3)} (${r.usageRatio.toFixed(2)}x) | ${r.spendMs.toFixed(3)} | ${r.ratio.toFixed(2)}x | ${r.ratio <= GOAL ? 'met' : 'missed'} |`,
  );
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
  return [
    HEADING,
    '',
    '`npm run bench -- --only spend` (bench/spend.ts). The one-event run cycle (one turn of the runtime: scheduler pass, acquire and',
    'claim, the agent, finish and claim) with the run\'s model usage recorded and a budget judged and handed to the run as its cap,',
    `against the same cycle without either, side by side in one store. ${plan.rounds} rounds × ${plan.cycles} cycles a side, alternating;`,
    `the ratio is the median of the rounds' ratios. "Usage only" is the same cycle with the usage recorded and no budget, the two`,
    `parts of the cost apart. Goal: at most ${GOAL}x.`,
    '',
    '| store | cycles a side | plain: median ms | usage only: median ms (ratio) | usage + budget: median ms | usage + budget ÷ plain | goal |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    `- ${met ? 'Met on both stores.' : 'Missed: see the rows.'}`,
    '- Where the budget\'s cost is: every budgeted run reads its cap when it starts (`ctx.budget`: the settings, the pause and',
    '  the day\'s and month\'s sums), and its finish is judged against the budget. SQLite judges inside the finish\'s own',
    '  transaction; PostgreSQL, whose finish is one server function call, judges in a transaction of its own and then claims in',
    '  a third, so a budgeted run commits three times where a plain one commits once. Moving the judgement into',
    '  `vigil_finish_and_claim` (the day and month bounds by `AT TIME ZONE`) would make it one commit again.',
    `- The floor under each SQLite cycle is its commits: a one-row commit at synchronous full costs ${machine.sqliteCommitMs.toFixed(3)} ms on this disk (fdatasync ${machine.fdatasyncMs.toFixed(3)} ms).`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores; Node.js ${machine.node}. Load average at the end ${load}; ${seconds.toFixed(0)} s.`,
    '',
  ].join('\n');
}
