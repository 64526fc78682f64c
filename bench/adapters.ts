/**
 * The adapters family (issue 50): the one-event run cycle through a real
 * `vigil serve`, from a chat message posted to the service until the
 * model's reply reaches a local webhook receiver, with each adapter against
 * its local fake, beside `toolAgent` on Vigil's own model code against the
 * same fake in the same run. No target yet: the ratio says what an adapter
 * costs over Vigil's own loop (for the Claude Agent SDK, a Claude Code
 * child per run).
 *
 * Rounds alternate adapter and peer, each on a fresh service, so a drift of
 * the machine falls on both. Writes the "## Adapters" section.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, startFakeOpenAI } from '../examples/fakes/index.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../test/fixtures/service-process.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { describeMachine, type Machine } from './machine.js';
import { elapsedSeconds, startTimer } from './timing.js';

export const ADAPTERS_FAMILY = 'adapters';
const HEADING = '## Adapters';
const TOKEN = 'bench-adapters-token-0123456789abcdef';

/** One agent under test: a module in bench/adapter-agents/ and what it needs to reach its fake. */
interface Side {
  label: string;
  agent: string;
  /** Environment for `vigil serve` (the fake's URL), given the fakes' URLs. */
  env: (fakes: FakeUrls) => Record<string, string>;
  /** Runs `vigil proxy` in front of the anthropic fake and sets `proxy.url` (the Agent SDK's child gets its key only from it). */
  proxy?: boolean;
}

interface Pair {
  name: string;
  fake: string;
  /** What each cycle sends: the fakes' default script echoes text and calls a tool a message names. */
  message: string;
  adapter: Side;
  peer: Side;
}

interface FakeUrls {
  anthropic: string;
  openai: string;
}

export interface CycleFigures {
  cycles: number;
  medianMs: number;
  p90Ms: number;
}

export interface PairResult {
  pair: Pair;
  adapter: CycleFigures;
  peer: CycleFigures;
}

const agent = (file: string): string => join(REPO_ROOT, 'bench/adapter-agents', file);

export const PAIRS: Pair[] = [
  {
    name: 'Claude Agent SDK (`claudeAgentSdk`)',
    fake: 'Anthropic Messages (streamed to the SDK, JSON to claudeAgent)',
    message: 'hello',
    adapter: { label: 'claudeAgentSdk', agent: agent('claude-agent-sdk.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }), proxy: true },
    peer: { label: 'claudeAgent', agent: agent('claude-agent.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }) },
  },
  {
    name: 'AI SDK, Anthropic provider (`aiSdkModel(anthropic(…))`)',
    fake: 'Anthropic Messages',
    message: 'hello',
    adapter: { label: 'toolAgent + aiSdkModel', agent: agent('ai-sdk-anthropic.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }) },
    peer: { label: 'claudeAgent', agent: agent('claude-agent.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }) },
  },
  {
    name: 'AI SDK, OpenAI-compatible provider (`aiSdkModel(createOpenAICompatible(…))`)',
    fake: 'OpenAI Chat Completions',
    message: 'hello',
    adapter: { label: 'toolAgent + aiSdkModel', agent: agent('ai-sdk-openai.ts'), env: (f) => ({ FAKE_OPENAI_URL: f.openai }) },
    peer: { label: 'toolAgent + examples/openai-compatible model', agent: agent('openai-model.ts'), env: (f) => ({ FAKE_OPENAI_URL: f.openai }) },
  },
  {
    name: 'MCP tools (`mcpTools`, a stdio server)',
    fake: 'Anthropic Messages; the model calls `echo.say` once per cycle',
    message: 'echo__say text=hi',
    adapter: { label: 'claudeAgent + mcpTools', agent: agent('mcp-tools.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }) },
    peer: { label: 'claudeAgent + the same tool in-process', agent: agent('local-tool.ts'), env: (f) => ({ FAKE_ANTHROPIC_URL: f.anthropic }) },
  },
];

interface Plan {
  rounds: number;
  warmup: number;
  cycles: number;
}

const FULL: Plan = { rounds: 3, warmup: 2, cycles: 15 };
const QUICK: Plan = { rounds: 1, warmup: 1, cycles: 2 };

/** One service, `plan.warmup + plan.cycles` messages one after another, each timed until its reply is delivered. */
async function measure(harness: ServiceHarness, side: Side, message: string, fakes: FakeUrls, cycles: number, warmup: number): Promise<number[]> {
  const dir = harness.tempDir('vigil-bench-adapters-');
  const receiver = await harness.receiver();
  let proxyUrl: string | undefined;
  if (side.proxy === true) {
    const proxyConfig = harness.writeConfig(
      dir,
      { maxBodyBytes: 8_000_000, upstreams: { anthropic: { url: fakes.anthropic, header: 'x-api-key', value: 'env:BENCH_ANTHROPIC_KEY', methods: ['POST'], paths: ['/v1/messages'] } } },
      'proxy.json',
    );
    const proxy = harness.start(['proxy', '--config', proxyConfig, '--port', '0'], { env: { BENCH_ANTHROPIC_KEY: 'sk-ant-fake' } });
    proxyUrl = (await proxy.log('vigil proxy listening', (line) => typeof line.msg === 'string' && line.msg.startsWith('vigil proxy listening on '))).url as string;
  }
  const config = harness.writeConfig(dir, {
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    token: TOKEN,
    agent: side.agent,
    channels: { webhook: { url: receiver.url, secret: 'whsec_' + Buffer.from('vigil-bench-adapters-secret-32by').toString('base64') } },
    engine: { outboxGapMs: 0 },
    ...(proxyUrl === undefined ? {} : { proxy: { url: proxyUrl } }),
  });
  const serve = harness.serve(config, side.env(fakes));
  const url = await serve.url();
  const times: number[] = [];
  for (let i = 0; i < warmup + cycles; i++) {
    const before = receiver.received.length;
    const started = performance.now();
    const response = await fetch(`${url}/inboxes/bench/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: message }),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `m-${i}` },
    });
    if (response.status !== 202) throw new Error(`${side.label}: the message was answered ${response.status}: ${await response.text()}`);
    await waitFor(`${side.label}'s reply to message ${i}`, () => receiver.received.length > before, 60_000);
    if (i >= warmup) times.push(performance.now() - started);
  }
  return times;
}

function figures(times: number[]): CycleFigures {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { cycles: sorted.length, medianMs: at(0.5), p90Ms: at(0.9) };
}

export async function runAdaptersFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const { log } = options;
  const plan = options.quick ? QUICK : FULL;
  const started = startTimer();
  const harness = new ServiceHarness();
  const anthropic = await startFakeAnthropic({ port: 0 });
  const openai = await startFakeOpenAI({ port: 0 });
  const fakes: FakeUrls = { anthropic: anthropic.url, openai: openai.url };
  const machine = describeMachine(harness.tempDir('vigil-bench-machine-'));
  const results: PairResult[] = [];
  try {
    for (const pair of PAIRS) {
      const adapter: number[] = [];
      const peer: number[] = [];
      for (let round = 0; round < plan.rounds; round++) {
        log(`adapters: ${pair.name}, round ${round + 1} of ${plan.rounds} (load ${loadavg()[0]!.toFixed(2)})`);
        adapter.push(...(await measure(harness, pair.adapter, pair.message, fakes, plan.cycles, plan.warmup)));
        await harness.cleanup();
        peer.push(...(await measure(harness, pair.peer, pair.message, fakes, plan.cycles, plan.warmup)));
        await harness.cleanup();
      }
      results.push({ pair, adapter: figures(adapter), peer: figures(peer) });
    }
  } finally {
    await harness.cleanup();
    await anthropic.close();
    await openai.close();
  }
  const section = renderAdaptersSection({ results, machine, plan, seconds: elapsedSeconds(started), loadAtEnd: loadavg() });
  process.stdout.write(section + '\n');
  if (options.out !== null) writeBenchmarkSection(options.out, HEADING, section);
  return true;
}

export function renderAdaptersSection(run: { results: PairResult[]; machine: Machine; plan: Plan; seconds: number; loadAtEnd: number[] }): string {
  const ms = (n: number): string => n.toFixed(1);
  const lines = [
    HEADING,
    '',
    '`npm run bench -- --only adapters` (bench/adapters.ts). The one-event run cycle through a real `vigil serve`: a chat message posted to',
    'the service until the model\'s reply reaches a local webhook receiver, with each adapter against its local fake, beside Vigil\'s own',
    'tool loop on the same fake in the same run. Rounds alternate adapter and peer, each on a fresh service; the first cycles of each',
    `service are a warm-up and not counted (${run.plan.rounds} rounds × ${run.plan.cycles} cycles after ${run.plan.warmup} warm-up). No target yet.`,
    '',
    '| adapter | fake | adapter: median / p90 ms | peer | peer: median / p90 ms | adapter ÷ peer (median) |',
    '| --- | --- | ---: | --- | ---: | ---: |',
    ...run.results.map(
      ({ pair, adapter, peer }) =>
        `| ${pair.name} | ${pair.fake} | ${ms(adapter.medianMs)} / ${ms(adapter.p90Ms)} | ${pair.peer.label} | ${ms(peer.medianMs)} / ${ms(peer.p90Ms)} | ${(adapter.medianMs / peer.medianMs).toFixed(2)}x |`,
    ),
    '',
    '- The Claude Agent SDK\'s cycle is mostly Claude Code starting: `query()` runs it as a child process per run (a 409 MB binary with',
    '  its own runtime), which Vigil kills with everything it started when the run ends or is aborted. The other adapters run in the',
    '  service\'s process and cost what their peer costs, within the noise.',
    `- Machine: ${run.machine.cpu}, ${run.machine.cores} cores; Node.js ${run.machine.node}. Load average at the end ${run.loadAtEnd.map((x) => x.toFixed(2)).join(' / ')}; ${run.seconds.toFixed(0)} s.`,
  ];
  return lines.join('\n');
}
