/**
 * The verdict of a run: per phase, what each side did; then the invariants
 * (nothing lost, nothing done twice: these fail the run for Vigil) and the
 * issue's targets (reported PASS/FAIL; --strict makes a miss fail the run).
 *
 * Where the issue is silent:
 * - "the last steady phase" is recovery, the last phase at the steady rate
 *   with no fault; throughput is events done per second over a phase.
 * - "p99 back under 2x its first-phase value": the first 10 s sample after
 *   the idle transaction ends whose p99 is under twice the p99 of every
 *   delivery in the steady phase; measured from the transaction's end to the
 *   end of that sample's window, so its resolution is one sample.
 * - "dead tuples back under their first-phase level": the sum of n_dead_tup
 *   over the side's tables in the last sample of recovery, against the
 *   highest in the steady phase. Autovacuum lets dead tuples reach 20% of a
 *   table's live rows before it runs, so tables that keep growing (no
 *   retention: --retention off; graphile's jobs table does not grow) let
 *   them grow too: the dead share of all tuples is shown beside it, so a
 *   miss from growth can be told from a miss from bloat. With retention
 *   Vigil's tables hold a bounded number of live rows and every pruned row
 *   is one more dead tuple for autovacuum to clear.
 */
import type { StoreKind } from './config.js';
import type { LedgerVerdict } from './ledger.js';
import type { Phase } from './phases.js';
import { latencyOf, type Latency, type Sample } from './sampler.js';
import { SIDE_LABELS, type Side, type SideKey, type StoreFinding } from './side.js';
import type { TimelineRecord } from './timeline.js';

export interface PhaseSummary {
  side: SideKey;
  phase: string;
  seconds: number;
  offeredPerS: number;
  donePerS: number;
  deliveredPerS: number;
  duplicates: number;
  latency: Latency;
  /** CPU of the side's worker processes, in cores; NaN without /proc. */
  workerCores: number;
  /** PostgreSQL: highest and last sum of dead tuples; the dead share at the end; sizes at the end. SQLite: the directory. */
  maxDead: number | null;
  endDead: number | null;
  endDeadShare: number | null;
  endBytes: number;
  endIndexBytes: number | null;
  /** SQLite: of endBytes, the inbox files' write-ahead logs. */
  endWalBytes: number | null;
  maxXminAge: number | null;
  /** Vigil with --retention (the retention tick hook's figures); null without. */
  retention: PhaseRetention | null;
}

export interface PhaseRetention {
  /** Rows the workers reported pruned during the phase. */
  prunedEvents: number;
  prunedMessages: number;
  /** Tombstones at the end of the phase (PostgreSQL; null on SQLite, where they are counted once, at the end). */
  tombstones: number | null;
  /** PostgreSQL: the tables retention bounds or grows, heap + indexes + TOAST, at the end of the phase. */
  tables: { events: number; outbox: number; tombstones: number } | null;
}

export interface Check {
  side: SideKey;
  name: string;
  measured: string;
  goal: string;
  /** null: not measured (said why in `measured`). */
  pass: boolean | null;
  /** A broken invariant fails the run; a missed target only with --strict. */
  invariant: boolean;
}

export interface SideVerdict {
  side: SideKey;
  ledger: LedgerVerdict;
  findings: StoreFinding[];
  supervisor: string[];
  phases: PhaseSummary[];
  checks: Check[];
}

/** What the retention hook's samples say about one phase: counts pruned since the phase before, where the tables stand at its end. */
export function phaseRetention(before: Sample | undefined, last: Sample): PhaseRetention | null {
  if (last.extra.prunedEvents === undefined) return null;
  const since = (key: string): number => (last.extra[key] ?? 0) - (before?.extra[key] ?? 0);
  const table = (name: string): number => (last.storage.kind === 'postgres' ? (last.storage.tables.find((t) => t.name === name)?.totalBytes ?? 0) : 0);
  return {
    prunedEvents: since('prunedEvents'),
    prunedMessages: since('prunedMessages'),
    tombstones: last.extra.tombstones ?? null,
    tables: last.storage.kind === 'postgres' ? { events: table('events'), outbox: table('outbox'), tombstones: table('tombstones') } : null,
  };
}

export function summarisePhases(side: Side, phases: readonly Phase[], samples: readonly Sample[]): PhaseSummary[] {
  const names = [...phases.map((p) => p.name as string), 'drain'];
  const sides = samples.filter((s) => s.side === side.key);
  return names.flatMap((phase) => {
    const mine = sides.filter((s) => s.phase === phase);
    if (mine.length === 0) return [];
    const before = sides[sides.indexOf(mine[0]!) - 1];
    const seconds = mine.reduce((sum, s) => sum + s.seconds, 0);
    const per = (f: (s: Sample) => number): number => mine.reduce((sum, s) => sum + f(s) * s.seconds, 0) / seconds;
    const last = mine[mine.length - 1]!;
    const pg = last.storage.kind === 'postgres' ? last.storage : null;
    return [
      {
        side: side.key,
        phase,
        seconds,
        offeredPerS: per((s) => s.offeredPerS),
        donePerS: per((s) => s.donePerS),
        deliveredPerS: per((s) => s.deliveredPerS),
        duplicates: mine.reduce((sum, s) => sum + s.duplicates, 0),
        workerCores: per((s) => s.workerCores),
        latency: latencyOf(side.ledger.phaseLatencies(phase)),
        maxDead: pg === null ? null : Math.max(...mine.map((s) => (s.storage.kind === 'postgres' ? s.storage.deadTuples : 0))),
        endDead: pg?.deadTuples ?? null,
        endDeadShare: pg === null ? null : pg.deadTuples / Math.max(1, pg.deadTuples + pg.liveTuples),
        endBytes: last.storage.totalBytes,
        endIndexBytes: pg?.indexBytes ?? null,
        endWalBytes: last.storage.kind === 'sqlite' ? last.storage.walBytes : null,
        maxXminAge: last.xminAge === null ? null : Math.max(...mine.map((s) => s.xminAge ?? 0)),
        retention: phaseRetention(before, last),
      },
    ];
  });
}

const n = (x: number): string => x.toLocaleString('en-US');

export async function judgeSide(
  side: Side,
  store: StoreKind,
  phases: readonly Phase[],
  samples: readonly Sample[],
  timeline: TimelineRecord,
  drainLimitS: number,
): Promise<SideVerdict> {
  const ledger = side.ledger.verdict();
  const findings = await side.findings();
  const summaries = summarisePhases(side, phases, samples);
  const invariant = side.key === 'vigil';
  const checks: Check[] = [];
  const add = (name: string, measured: string, goal: string, pass: boolean | null, isInvariant = false): void => {
    checks.push({ side: side.key, name, measured, goal, pass, invariant: isInvariant });
  };

  add(
    'every stored event has its reply delivered (nothing lost)',
    `${n(ledger.delivered)} of ${n(ledger.stored)} delivered` +
      (ledger.notDelivered > 0 ? ` within ${drainLimitS} s of the load's end; missing e.g. events ${ledger.notDeliveredSample.join(', ')}` : ''),
    'all',
    ledger.notDelivered === 0,
    invariant,
  );
  add(
    'no event done twice (a second, different reply for one event)',
    `${n(ledger.doneTwice)}` + (ledger.doneTwice > 0 ? `; e.g. events ${ledger.doneTwiceSample.join(', ')}` : ''),
    '0',
    ledger.doneTwice === 0,
    invariant,
  );
  add('no reply for an event never offered', n(ledger.strangers), '0', ledger.strangers === 0, invariant);
  add('every key stored once by the producer', `${n(ledger.unexpectedDuplicates)} unexpected duplicates`, '0', ledger.unexpectedDuplicates === 0, invariant);
  for (const finding of findings) add(finding.name, finding.value, 'holds', finding.ok, finding.invariant);
  add(
    side.key === 'vigil' ? 'the same reply delivered again (the dispatcher is at-least-once)' : 'a job run and its reply delivered again after a kill',
    `${n(ledger.duplicateDeliveries)} repeat deliveries; ${n(ledger.deliveredMoreThanOnce)} events got their reply more than once`,
    'counted',
    null,
  );
  if (ledger.gaveUp > 0) add('events the producer could not store (the store kept failing)', n(ledger.gaveUp), '0', false);

  const phase = (name: string): PhaseSummary | undefined => summaries.find((s) => s.phase === name);
  const first = phase('steady');
  const lastSteady = phase('recovery');
  if (first !== undefined && lastSteady !== undefined) {
    const ratio = lastSteady.donePerS / first.donePerS;
    add(
      'throughput in the last steady phase (recovery) >= 90% of the first',
      `${lastSteady.donePerS.toFixed(1)} / ${first.donePerS.toFixed(1)} events/s = ${(ratio * 100).toFixed(0)}%`,
      '>= 90%',
      ratio >= 0.9,
    );
  }

  const steadyEnd = first?.endBytes;
  if (first?.retention !== undefined && first.retention !== null && lastSteady !== undefined && steadyEnd !== undefined) {
    add(
      `data bounded under retention: ${store === 'postgres' ? "the side's tables and indexes" : 'the store directory'} at the end of recovery vs at the end of the first steady phase`,
      `${mib(lastSteady.endBytes)} vs ${mib(steadyEnd)} (${(lastSteady.endBytes / steadyEnd).toFixed(2)}x)`,
      'counted',
      null,
    );
  }

  if (store === 'postgres' && first !== undefined) {
    const horizonEnd = timeline.horizon?.releasedAtS;
    if (horizonEnd === undefined || Number.isNaN(horizonEnd)) {
      add('p99 back under 2x the first phase within 2 minutes of the idle transaction ending', 'the horizon was not held', '<= 120 s', null);
    } else {
      const bound = 2 * first.latency.p99;
      const after = samples.filter((s) => s.side === side.key && s.t - s.seconds >= horizonEnd - 0.5 && s.latencyMs.n > 0);
      const back = after.find((s) => s.latencyMs.p99 < bound);
      const took = back === undefined ? null : back.t - horizonEnd;
      add(
        'p99 back under 2x the first phase within 2 minutes of the idle transaction ending',
        back === undefined
          ? `never under ${bound.toFixed(0)} ms after it ended`
          : `${took!.toFixed(0)} s (sample p99 ${back.latencyMs.p99.toFixed(0)} ms < 2 x ${first.latency.p99.toFixed(0)} ms)`,
        '<= 120 s',
        took !== null && took <= 120,
      );
    }
    if (lastSteady !== undefined && lastSteady.endDead !== null && first.maxDead !== null) {
      add(
        'dead tuples at the end of recovery under their first-phase level',
        `${n(lastSteady.endDead)} vs at most ${n(first.maxDead)} in the first phase` +
          ` (dead share ${pct(lastSteady.endDeadShare)} vs ${pct(first.endDeadShare)} at the end of the first phase)`,
        'under',
        lastSteady.endDead <= first.maxDead,
      );
    }
  }

  return { side: side.key, ledger, findings, supervisor: side.supervisorNotes(), phases: summaries, checks };
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function pct(x: number | null): string {
  return x === null ? '–' : `${(x * 100).toFixed(1)}%`;
}

/** The lines a person reads at the end of a run. */
export function describeChecks(verdicts: readonly SideVerdict[]): string {
  const lines: string[] = [];
  for (const verdict of verdicts) {
    lines.push(`${SIDE_LABELS[verdict.side]}:`);
    for (const check of verdict.checks) {
      const mark = check.pass === null ? 'info' : check.pass ? 'PASS' : check.invariant ? 'BROKEN' : 'FAIL';
      lines.push(`  ${mark.padEnd(6)} ${check.name}: ${check.measured}`);
    }
    for (const note of verdict.supervisor) lines.push(`  note   ${note}`);
  }
  return lines.join('\n');
}
