/**
 * The invariants, checked once the run has drained: from the store's own
 * rows and counts, the feeder's acknowledgements, the approval answers,
 * the timer plan and the workers' journals. Each check lists its first
 * violations; an empty list is an invariant that held.
 */
import type { EventRow, InboxStats, Store } from '../src/store/contract.js';
import type { AskRecord } from './approvals.js';
import { replyBody } from './chaos-agent.js';
import type { ChaosConfig } from './config.js';
import { eventKey } from './feeder.js';
import type { JournalRecord } from './journal.js';
import { explainDeaths } from './collateral.js';
import { checkLeases, type LeaseReport } from './leases.js';
import { inboxName, type PlannedEvent } from './plan.js';
import type { TimerPlan } from './timers.js';
import { MAX_EVENTS_PER_INBOX } from './config.js';

export interface Invariant {
  name: string;
  /** How many things were checked (events, messages, leases...). */
  checked: number;
  violations: string[];
}

export interface CheckInput {
  config: ChaosConfig;
  store: Store;
  plan: readonly PlannedEvent[];
  acks: ReadonlyMap<string, number>;
  asks: readonly AskRecord[];
  timers: TimerPlan;
  journal: readonly JournalRecord[];
  /** Workers that exited with a code instead of being killed. */
  workerErrors: string[];
  /** Holders whose process died during the run. */
  diedDuringRun: ReadonlySet<string>;
}

export interface CheckResult {
  invariants: Invariant[];
  leases: LeaseReport;
  rows: number;
  /** Healthy events dead because every attempt died with its worker (collateral.ts). */
  collateral: string[];
  done: number;
  dead: number;
  messages: number;
  deliveries: number;
  duplicateDeliveries: number;
  lostMessages: number;
}

interface StoredEvent extends EventRow {
  inbox: string;
}

const FIRST = 5;

export async function checkRun(input: CheckInput): Promise<CheckResult> {
  const { config } = input;
  const rows: StoredEvent[] = [];
  const stats: InboxStats[] = [];
  for (let n = 0; n < config.inboxes; n++) {
    const inbox = input.store.inbox(inboxName(n));
    const list = await inbox.events({ limit: MAX_EVENTS_PER_INBOX + 1_000 });
    rows.push(...list.map((row) => ({ ...row, inbox: inbox.id })));
    stats.push(await inbox.stats());
  }
  const planned = new Map(input.plan.map((e) => [eventKey(e.inbox, e.sourceId), e]));
  const byKey = new Map<string, StoredEvent[]>();
  for (const row of rows) {
    const key = `${row.inbox}|${row.source}/${row.sourceId}`;
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const chaosRow = (e: PlannedEvent): StoredEvent[] => byKey.get(`${e.inbox}|chaos/${e.sourceId}`) ?? [];

  // Deliveries, by message id (per inbox), from the channel's journal.
  const delivered = new Map<string, { body: string; times: number }>();
  for (const r of input.journal) {
    if (r.k !== 'sent') continue;
    r.ids.forEach((id, i) => {
      const key = `${r.inbox}#${id}`;
      const seen = delivered.get(key);
      if (seen === undefined) delivered.set(key, { body: r.bodies[i]!, times: 1 });
      else seen.times += 1;
    });
  }
  const idsByBody = new Map<string, Set<string>>();
  for (const [id, { body }] of delivered) idsByBody.set(body, (idsByBody.get(body) ?? new Set()).add(id));

  const invariants: Invariant[] = [];
  const add = (name: string, checked: number, violations: string[]): void => void invariants.push({ name, checked, violations });

  // 1. R1: every acknowledged event stored once, nothing stored that was not sent.
  const ackViolations: string[] = [];
  for (const [key, e] of planned) {
    const acks = input.acks.get(key) ?? 0;
    const stored = chaosRow(e).length;
    if (acks !== 1 || stored !== 1) ackViolations.push(`${key}: acknowledged ${acks}×, stored ${stored}×`);
  }
  for (const row of rows) if (row.source === 'chaos' && !planned.has(eventKey(row.inbox, row.sourceId))) ackViolations.push(`${row.inbox}/${row.sourceId}: stored, never sent`);
  add('every acknowledged event stored once', planned.size, ackViolations);

  // 2. Every healthy event done (timer and approval events are healthy too).
  const mustDie = new Set(['poison', 'throwing']);
  const healthy = rows.filter((row) => row.source !== 'chaos' || !mustDie.has(planned.get(eventKey(row.inbox, row.sourceId))?.kind ?? ''));
  const deadHealthy = healthy.filter((row) => row.status === 'dead');
  const { collateral, unexplained } = explainDeaths(deadHealthy, input.journal, input.diedDuringRun);
  add('every healthy event done (or dead only as collateral)', healthy.length, [
    ...healthy.filter((row) => row.status !== 'done' && row.status !== 'dead').map((row) => `${row.inbox}/${row.source}/${row.sourceId}: ${row.status}`),
    ...unexplained,
  ]);

  // 3. One outbox message per done event, none for the rest (R3, R5).
  const done = rows.filter((row) => row.status === 'done');
  const queued = stats.reduce((sum, s) => sum + s.outbox.sent + s.outbox.held, 0);
  const messageViolations: string[] = [];
  if (queued !== done.length) messageViolations.push(`${queued} messages queued for ${done.length} done events`);
  for (const row of rows) {
    const ids = idsByBody.get(replyBody(row.inbox, row)) ?? new Set();
    if (ids.size > 1) messageViolations.push(`${row.inbox}/${row.source}/${row.sourceId}: ${ids.size} different messages`);
    if (ids.size > 0 && row.status !== 'done') messageViolations.push(`${row.inbox}/${row.source}/${row.sourceId}: a message went out, yet it is ${row.status}`);
  }
  add('exactly one outbox message per done event', done.length, messageViolations);

  // 4. R4, R6: poison and always-throwing events dead after exactly maxAttempts.
  const doomed = input.plan.filter((e) => mustDie.has(e.kind));
  add(
    `every poison/throwing event dead after exactly ${config.maxAttempts} attempts`,
    doomed.length,
    doomed.flatMap((e) => {
      const row = chaosRow(e)[0];
      if (row === undefined) return [`${e.inbox}/${e.sourceId}: missing`];
      if (row.status !== 'dead' || row.attempts !== config.maxAttempts) return [`${e.inbox}/${e.sourceId} (${e.kind}): ${row.status} after ${row.attempts} attempts`];
      return [];
    }),
  );

  // 5. Nothing left running, pending, held or waiting.
  const left: string[] = [];
  stats.forEach((s, n) => {
    const parts = Object.entries({ pending: s.events.pending, running: s.events.running, held: s.outbox.held, approvalsPending: s.approvalsPending }).filter(([, v]) => v > 0);
    if (parts.length > 0) left.push(`${inboxName(n)}: ${parts.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  });
  add('nothing left running, pending or held', config.inboxes, left);

  // 6. R9: every message reached the channel at least once (at most once with atMostOnce).
  const sentCount = stats.reduce((sum, s) => sum + s.outbox.sent, 0);
  const duplicateDeliveries = [...delivered.values()].reduce((sum, d) => sum + d.times - 1, 0);
  const lostMessages = Math.max(0, sentCount - delivered.size);
  const deliveryViolations: string[] = [];
  if (delivered.size > sentCount) deliveryViolations.push(`${delivered.size} messages reached the channel, only ${sentCount} recorded sent`);
  if (config.atMostOnce) {
    for (const [id, d] of delivered) if (d.times > 1) deliveryViolations.push(`message ${id} reached the channel ${d.times}×`);
  } else {
    if (lostMessages > 0) deliveryViolations.push(`${lostMessages} messages recorded sent never reached the channel`);
    for (const row of done) if (!idsByBody.has(replyBody(row.inbox, row))) deliveryViolations.push(`${row.inbox}/${row.source}/${row.sourceId}: its reply never reached the channel`);
  }
  add(config.atMostOnce ? 'every message reached the channel at most once' : 'every message reached the channel at least once', sentCount, deliveryViolations);

  // 7. R2/R3: one lease holder per inbox at any time.
  const leases = checkLeases(input.journal, config.leaseTtlMs);
  add('no two workers held one lease at once', leases.leases, [...leases.overlaps, ...leases.sharedGens.map((g) => `two holders for ${g}`)]);

  // 8. R7: each timer occurrence fired once, none skipped.
  add('timers fired each occurrence once', input.timers.intervals.length + input.timers.oneOffs.length, await checkTimers(input, rows));

  // 9. R8: one answer stands per approval, and it came back as an event.
  add('one answer per approval, delivered as an event', input.asks.length, checkApprovals(input.asks, byKey, new Set(collateral.map((c) => c.split(':')[0]!))));

  // 10. Workers die only by SIGKILL: an uncaught error in the runtime is a bug.
  add('no worker died of an error', input.workerErrors.length, input.workerErrors);

  for (const invariant of invariants) invariant.violations.splice(FIRST, Infinity, ...(invariant.violations.length > FIRST ? [`… ${invariant.violations.length - FIRST} more`] : []));
  return {
    invariants,
    leases,
    rows: rows.length,
    collateral,
    done: done.length,
    dead: rows.filter((row) => row.status === 'dead').length,
    messages: queued,
    deliveries: [...delivered.values()].reduce((sum, d) => sum + d.times, 0),
    duplicateDeliveries,
    lostMessages,
  };
}

async function checkTimers(input: CheckInput, rows: readonly StoredEvent[]): Promise<string[]> {
  const violations: string[] = [];
  const fired = new Map<string, number[]>();
  for (const row of rows) {
    if (row.source !== 'timer') continue;
    const at = row.sourceId.lastIndexOf('@');
    const key = `${row.inbox}|${row.sourceId.slice(0, at)}`;
    fired.set(key, [...(fired.get(key) ?? []), Number(row.sourceId.slice(at + 1))]);
  }
  for (const t of input.timers.intervals) {
    const times = (fired.get(`${t.inbox}|${t.id}`) ?? []).sort((a, b) => a - b);
    const gaps = times.filter((time, k) => time !== t.firstDue + k * t.every);
    if (gaps.length > 0) violations.push(`${t.inbox}/${t.id}: occurrences not one per period from the first: ${gaps.slice(0, 3).join(', ')}`);
    const owed = t.stoppedAt === null ? 0 : Math.floor((t.stoppedAt - t.firstDue) / t.every) + 1;
    if (times.length < owed) violations.push(`${t.inbox}/${t.id}: ${times.length} occurrences fired, ${owed} were due`);
  }
  for (const t of input.timers.oneOffs) {
    const times = fired.get(`${t.inbox}|${t.id}`) ?? [];
    if (times.length !== 1 || times[0] !== t.due) violations.push(`${t.inbox}/${t.id}: fired at [${times.join(', ')}], due ${t.due}`);
  }
  for (let n = 0; n < input.config.inboxes; n++) {
    for (const timer of await input.store.inbox(inboxName(n)).timers()) {
      if (!timer.done) violations.push(`${inboxName(n)}/${timer.id}: still scheduled for ${timer.due}`);
    }
  }
  return violations;
}

function checkApprovals(asks: readonly AskRecord[], byKey: ReadonlyMap<string, EventRow[]>, collateral: ReadonlySet<string>): string[] {
  const violations: string[] = [];
  for (const ask of asks) {
    // An ask event that died as collateral never asked: no approval, nothing to answer.
    if (collateral.has(`${ask.inbox}/chaos/${ask.sourceId}`) && (byKey.get(`${ask.inbox}|approval/${ask.id}`) ?? []).length === 0) continue;
    const events = byKey.get(`${ask.inbox}|approval/${ask.id}`) ?? [];
    const expected = ask.plan === 'expire' ? 'expired' : ask.standing;
    const answer = (events[0]?.payload as { answer?: unknown } | undefined)?.answer;
    if (events.length !== 1) violations.push(`${ask.inbox}/${ask.id}: ${events.length} approval events`);
    else if (expected === null) violations.push(`${ask.inbox}/${ask.id}: never answered (the approval was never asked)`);
    else if (answer !== expected) violations.push(`${ask.inbox}/${ask.id}: the event says ${String(answer)}, ${expected} stands`);
    if (ask.second !== ask.standing) violations.push(`${ask.inbox}/${ask.id}: a second answer returned ${ask.second}, ${ask.standing} stood`);
  }
  return violations;
}
