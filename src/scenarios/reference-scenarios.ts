/**
 * The eight failure scenarios from the article Vigil's design comes from,
 * run through the public API with the article's clock values (its seconds
 * are milliseconds here). A "crash" is a worker that claims and never calls
 * finish(); scenario 5's poison event is the testing kit's 'after-claim'
 * crash point (vigil-agents/testing), the way users write their own scenarios.
 * Prints the same lines as the article's reference script.
 *
 * One implementation for `npm run scenarios` and the testing kit's example
 * (examples/) and `vigil demo` (src/cli/): the CLI ships in dist/, which
 * cannot reach examples/, so the scenarios live here.
 */
import { defineAgent } from '../agent/agent.js';
import { createFakeClock, type FakeClock } from '../clock.js';
import type { Inbox, Store } from '../store/contract.js';
import { crashingStore } from '../testing/crashing-store.js';
import { runOnce } from '../testing/run-once.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const LEASE_TTL = 120 * SECOND;
const T = 1_000_000 * SECOND;

/** Opens a fresh store on the scenarios' clock (`now`; `clock` to hand a testing kit); runScenarios closes it. */
export type StoreFactory = (now: () => number, clock: FakeClock) => Promise<Store>;

/**
 * How values are written: `python` as the article's reference script prints
 * them (`True`, `None`, `['a']`, `('done', 2)`), so the tests can compare
 * line for line; `js` as a TypeScript reader expects them (`true`, `null`,
 * `["a"]`, `{ status: "done", attempts: 2 }`), for `vigil demo`.
 */
export type ScenarioStyle = 'python' | 'js';

interface Show {
  value(value: boolean | number | null | readonly string[]): string;
  status(status: string | undefined, attempts: number | undefined): string;
  /** "(gen 1 ):" is Python's print putting a space between every argument. */
  genLabel(gen: number): string;
}

const PYTHON: Show = {
  value: (value) => {
    if (value === true) return 'True';
    if (value === false) return 'False';
    if (value === null) return 'None';
    if (Array.isArray(value)) return `[${value.map((v) => `'${v}'`).join(', ')}]`;
    return String(value);
  },
  status: (status, attempts) => `('${status}', ${attempts})`,
  genLabel: (gen) => `(gen ${gen} ):`,
};

const JS: Show = {
  value: (value) => (Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value)),
  status: (status, attempts) => `{ status: ${JSON.stringify(status ?? null)}, attempts: ${attempts ?? null} }`,
  genLabel: (gen) => `(gen ${gen}):`,
};

/** Runs all eight scenarios against a fresh inbox and returns the printed lines. */
export async function runScenarios(makeStore: StoreFactory, inboxId = 'agent', style: ScenarioStyle = 'python'): Promise<string[]> {
  const clock = createFakeClock(T);
  const store = await makeStore(clock.now, clock);
  const lines: string[] = [];
  const print = (...parts: unknown[]): void => {
    lines.push(parts.map(String).join(' '));
  };
  try {
    await scenarios(store, store.inbox(inboxId), clock, print, style === 'js' ? JS : PYTHON);
  } finally {
    await store.close();
  }
  return lines;
}

async function scenarios(store: Store, inbox: Inbox, clock: FakeClock, print: (...parts: unknown[]) => void, show: Show): Promise<void> {
  const fmt = show.value;
  const at = (ms: number): void => clock.set(ms);

  /** One run: take the lease, claim, finish. */
  const run = async (holder: string, now: number, messages: string[] = []) => {
    at(now);
    const gen = (await inbox.acquire(holder))!;
    const batch = await inbox.claimBatch(holder, gen);
    await inbox.finish(holder, gen, batch.map((e) => e.id), { messages });
    return batch;
  };
  const status = async (sourceId: string): Promise<string> => {
    const event = await inbox.getEvent('chat', sourceId);
    return show.status(event?.status, event?.attempts);
  };
  const countEvents = async (prefix?: string): Promise<number> =>
    (await inbox.events({ limit: 10_000 })).filter((e) => prefix === undefined || e.sourceId.startsWith(prefix)).length;

  print('1. webhook delivered twice');
  at(T);
  const first = await inbox.ingest({ source: 'github', sourceId: 'delivery-7f3a', payload: { pr: 12 } });
  const retry = await inbox.ingest({ source: 'github', sourceId: 'delivery-7f3a', payload: { pr: 12 } });
  print('   first:', fmt(first), ' retry:', fmt(retry), ' rows:', await countEvents());

  print('2. two workers ask for the lease at the same time');
  print('   A:', fmt(await inbox.acquire('A')), ' B:', fmt(await inbox.acquire('B')));
  await run('A', T);

  print('3. three quick chat messages');
  for (let n = 0; n < 3; n++) await inbox.ingest({ source: 'chat', sourceId: `msg-${n}`, payload: { text: `message ${n}` } });
  print('   events in one run:', (await run('A', T + 5 * SECOND)).length);

  print("4. A stalls mid-run; B takes over; A wakes up");
  await inbox.ingest({ source: 'chat', sourceId: 'msg-3', payload: { text: 'send the report' } });
  at(T + 10 * SECOND);
  const genA = (await inbox.acquire('A'))!;
  const batchA = await inbox.claimBatch('A', genA); // A stalls here
  at(T + 60 * SECOND);
  print("   B before A's lease expires:", fmt(await inbox.acquire('B')));
  const t2 = T + 10 * SECOND + LEASE_TTL + SECOND;
  at(t2);
  const genB = (await inbox.acquire('B'))!;
  const batchB = await inbox.claimBatch('B', genB);
  print('   B after expiry: gen', genB, ' re-claims', fmt(batchB.map((e) => e.sourceId)));
  await inbox.finish('B', genB, batchB.map((e) => e.id), { messages: ['report sent'] });
  const t3 = t2 + LEASE_TTL + SECOND; // B's lease lapses too
  at(t3);
  print('   A renews after both leases lapsed: gen', fmt(await inbox.acquire('A')));
  const late = await inbox.finish('A', genA, batchA.map((e) => e.id), { messages: ['report sent'] });
  print(`   A finishes its old claim ${show.genLabel(genA)}`, fmt(late));
  const outboxRows = (await inbox.stats()).outbox;
  print('   msg-3:', await status('msg-3'), ' outbox rows:', outboxRows.held + outboxRows.sent);

  print('5. a poison event arrives together with a healthy one');
  await inbox.ingest({ source: 'chat', sourceId: 'poison', payload: { text: 'x' } });
  await inbox.ingest({ source: 'chat', sourceId: 'healthy', payload: { text: 'ok' } });
  // The poison kills whichever worker claims it: a crash point, not a thrown error.
  const poisoned = crashingStore(store, {
    at: 'after-claim',
    times: Infinity,
    when: (site) => site.events.some((e) => e.sourceId === 'poison'),
  });
  const quiet = defineAgent({ name: 'quiet', run: async () => ({ nothing: true }) });
  let now = t3 + LEASE_TTL + SECOND;
  for (let n = 0; n < 5; n++) {
    at(now);
    const turn = await runOnce({ store: poisoned, inbox: inbox.id, agent: quiet, holder: `W${n}`, clock });
    const ids = turn.claimed.flat().map((e) => e.sourceId);
    print(`   W${n} claimed ${fmt(ids)} and ${turn.outcome === 'crashed' ? 'crashed' : 'finished'}`);
    now += LEASE_TTL + SECOND;
  }
  print('   poison:', await status('poison'), ' healthy:', await status('healthy'));

  print('6. timers: a second scheduler pass, a replay, a three-day outage');
  at(now);
  const digest = { id: 'digest', due: now, every: DAY, payload: { task: 'daily digest' } };
  await inbox.addTimer(digest);
  print('   pass 1:', await inbox.runScheduler(), ' pass 2:', await inbox.runScheduler());
  await inbox.addTimer(digest); // a deploy re-registers the schedule with its old due time
  print('   replay of the same occurrence:', await inbox.runScheduler(), 'due,', await countEvents('digest@'), 'event total');
  const later = now + DAY + 3 * DAY + 10 * MINUTE; // next due + 3 days
  at(later);
  await inbox.runScheduler();
  const digests = (await inbox.events({ limit: 10_000 })).filter((e) => e.sourceId.startsWith('digest@'));
  const last = digests[digests.length - 1]!.payload as { skipped: number; lateBy: number };
  const nextDue = (await inbox.timers()).find((t) => t.id === 'digest')!.due;
  print(
    '   after the outage: events total',
    digests.length,
    ' skipped',
    last.skipped,
    ' late by',
    Math.floor(last.lateBy / MINUTE),
    'min',
    ' next due in',
    Math.round(((nextDue - later) / HOUR) * 10) / 10,
    'h',
  );

  print('7. approvals with a four-hour window');
  const ask = async (id: string, action: string): Promise<void> => {
    at(later);
    await inbox.requestApproval({ id, expiresInMs: 4 * HOUR, action });
  };
  const answer = async (id: string, yesNo: 'yes' | 'no', when: number) => {
    at(when);
    return inbox.answerApproval(id, yesNo);
  };
  await ask('refund-881', 'refund order 881');
  at(later + 5 * HOUR);
  await inbox.runScheduler();
  print('   881: expiry ran at 5h, yes at 6h ->', await answer('refund-881', 'yes', later + 6 * HOUR));
  await ask('refund-882', 'refund order 882');
  print('   882: yes at 5h, scheduler not run yet ->', await answer('refund-882', 'yes', later + 5 * HOUR));
  await ask('refund-883', 'refund order 883');
  print(
    '   883: yes at 1h ->',
    await answer('refund-883', 'yes', later + HOUR),
    ' second tap no at 2h ->',
    await answer('refund-883', 'no', later + 2 * HOUR),
  );
  at(later + 5 * HOUR);
  await inbox.runScheduler();
  const stored = (await inbox.getEvent('approval', 'refund-883'))!.payload as { answer: string };
  print('   883 after its expiry timer fired:', stored.answer);
  print('   never requested ->', await answer('refund-999', 'yes', later));

  print('8. outbox: three updates inside an hour');
  const m = later + 6 * HOUR;
  at(m - 2 * HOUR);
  await inbox.dispatch(() => undefined); // what earlier runs said went out two hours ago
  // Updates queued by three runs, each dispatched as it arrives.
  const sent: string[] = [];
  for (const [n, minute] of [0, 10, 20].entries()) {
    at(m + minute * MINUTE);
    const gen = (await inbox.acquire('W9'))!;
    await inbox.finish('W9', gen, [], { messages: [`update ${n}`] });
    await inbox.dispatch((body) => void sent.push(body));
  }
  at(m + 61 * MINUTE);
  await inbox.dispatch((body) => void sent.push(body));
  print('   sends:', fmt(sent.map((s) => s.replaceAll('\n\n', ' | '))));
}
