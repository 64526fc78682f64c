/** The targets of issue 22 (and those of issue 2 that still hold), checked against one run's medians. */
import { FLOOR, type Results } from './suite.js';

export const VIGIL = 'Vigil (SQLite)';
export const PYTHON = 'Python reference';

export interface TargetCheck {
  name: string;
  /** How the measured value is formed, e.g. "Vigil ingest / Python ingest". */
  measure: string;
  goal: string;
  value: number | null;
  unit: 'x' | 'ms';
  /** null when the figure could not be measured (the reference was absent). */
  pass: boolean | null;
}

/**
 * The dispatch rows against their floors (dispatch-floor.ts), where the
 * reference's goals are beyond what the disk allows: the floor of the
 * 10,000 messages is itself no more than about 1.5 times as fast as the
 * reference (so 2x of it is out of reach for any code doing that SQL), and
 * the reference's pass keeps its files open while a bounded store must open
 * and close them (so the floor of the pass takes several times the
 * reference's time). Each floor's own row against the reference shows it.
 * The 10,000 messages: Vigil adds to the floor's one transaction the
 * reservation's (the send happens between two), the pacing, the ready index
 * and the plan over 10,000 rows in JavaScript. The pass: per message Vigil
 * adds two ready-index commits, the wake queries and some twenty statements
 * prepared on each newly opened file to the floor's flushes and open. Either
 * within 1/0.6 of its floor's time (measured on a shared 2-core machine:
 * 0.5–0.8x and 0.5–1.0x).
 */
const DISPATCH_VS_FLOOR = 0.6;
const SPREAD_VS_FLOOR = 0.6;

function atLeast(value: number | null, min: number): boolean | null {
  return value === null ? null : value >= min;
}

function atMost(value: number | null, max: number): boolean | null {
  return value === null ? null : value <= max;
}

export function checkTargets(r: Results): TargetCheck[] {
  // Paired per repetition (see suite.ts). For times, ratio(a, b) is b's
  // time ÷ a's time, so ratio(small, big) is the big pass's time ÷ the small one's.
  const ingestVsFloor = r.ratio('ingest', VIGIL, 'ingestFloor', FLOOR);
  const manyVsRef = r.ratio('ingestMany', VIGIL, 'ingestMany', PYTHON);
  const cycleVsRef = r.ratio('cycle1done', VIGIL, 'cycle1done', PYTHON);
  const cycleVsFloor = r.ratio('cycle1done', VIGIL, 'cycle1doneFloor', FLOOR);
  const cycleFloorVsRef = r.ratio('cycle1doneFloor', FLOOR, 'cycle1done', PYTHON);
  const schedVsRef = r.ratio('schedSmall', VIGIL, 'schedSmall', PYTHON);
  const manyVsFloor = r.ratio('ingestMany', VIGIL, 'ingestManyFloor', FLOOR);
  const manyFloorVsRef = r.ratio('ingestManyFloor', FLOOR, 'ingestMany', PYTHON);
  const schedVsFloor = r.ratio('schedSmall', VIGIL, 'schedSmallFloor', FLOOR);
  const schedFloorVsRef = r.ratio('schedSmallFloor', FLOOR, 'schedSmall', PYTHON);
  const dispatchVsRef = r.ratio('dispatch', VIGIL, 'dispatch', PYTHON);
  const spreadVsRef = r.ratio('dispatchSpread', VIGIL, 'dispatchSpread', PYTHON);
  const dispatchVsFloor = r.ratio('dispatch', VIGIL, 'dispatchFloor', FLOOR);
  const spreadVsFloor = r.ratio('dispatchSpread', VIGIL, 'dispatchSpreadFloor', FLOOR);
  const dispatchFloorVsRef = r.ratio('dispatchFloor', FLOOR, 'dispatch', PYTHON);
  const spreadFloorVsRef = r.ratio('dispatchSpreadFloor', FLOOR, 'dispatchSpread', PYTHON);
  const concurrentVsRef = r.ratio('ingestConcurrent', VIGIL, 'ingest', PYTHON);
  const cycleDoneVsEmpty = r.ratio('cycle1done', VIGIL, 'cycle1', VIGIL);
  const manyVsSingle = r.ratio('ingestMany', VIGIL, 'ingest', VIGIL);
  const manyFloorVsSingleFloor = r.ratio('ingestManyFloor', FLOOR, 'ingestFloor', FLOOR);
  const schedBigVsSmall = r.ratio('schedSmall', VIGIL, 'schedBig', VIGIL);
  const idle = r.median('idleBig', VIGIL);
  return [
    {
      name: 'ingestMany vs the reference',
      measure: 'Vigil events/s ÷ Python events/s, per repetition',
      goal: '>= 1.5x',
      value: manyVsRef,
      unit: 'x',
      pass: atLeast(manyVsRef, 1.5),
    },
    {
      name: 'scheduler pass, 1,000 of 1,000 timers due, vs the reference',
      measure: 'Python ms ÷ Vigil ms, per repetition',
      goal: '>= 1.5x',
      value: schedVsRef,
      unit: 'x',
      pass: atLeast(schedVsRef, 1.5),
    },
    {
      name: "ingestMany vs its floor: the same rows as bare multi-row INSERTs into the same schema, same durability",
      measure: 'Vigil events/s ÷ floor events/s, per repetition',
      goal: '>= 0.8x',
      value: manyVsFloor,
      unit: 'x',
      pass: atLeast(manyVsFloor, 0.8),
    },
    {
      name: "ingestMany's floor vs the reference (informational: the most any code on this schema and durability could show)",
      measure: 'floor events/s ÷ Python events/s, per repetition',
      goal: '>= 1.5x',
      value: manyFloorVsRef,
      unit: 'x',
      pass: atLeast(manyFloorVsRef, 1.5),
    },
    {
      name: 'scheduler pass, 1,000 of 1,000 due, vs its floor: the same SQL bare on the same schema, same durability',
      measure: 'floor ms ÷ Vigil ms, per pass',
      goal: '>= 0.8x',
      value: schedVsFloor,
      unit: 'x',
      pass: atLeast(schedVsFloor, 0.8),
    },
    {
      name: "the scheduler pass's floor vs the reference (informational: the most any code on this schema and durability could show)",
      measure: 'Python ms ÷ floor ms, per pass',
      goal: '>= 1.5x',
      value: schedFloorVsRef,
      unit: 'x',
      pass: atLeast(schedFloorVsRef, 1.5),
    },
    {
      name: 'dispatch of 10,000 held messages vs the reference',
      measure: 'Python ms ÷ Vigil ms, per repetition',
      goal: '>= 2x',
      value: dispatchVsRef,
      unit: 'x',
      pass: atLeast(dispatchVsRef, 2),
    },
    {
      name: 'dispatch of 10,000 held messages vs its floor (the bare SELECT and UPDATE of those rows in one durable commit)',
      measure: 'floor ms ÷ Vigil ms, per repetition',
      goal: `>= ${DISPATCH_VS_FLOOR}x`,
      value: dispatchVsFloor,
      unit: 'x',
      pass: atLeast(dispatchVsFloor, DISPATCH_VS_FLOOR),
    },
    {
      name: "the 10,000 messages' floor vs the reference (informational: the most any code doing that SQL at that durability could show)",
      measure: 'Python ms ÷ floor ms, per repetition',
      goal: '>= 2x',
      value: dispatchFloorVsRef,
      unit: 'x',
      pass: atLeast(dispatchFloorVsRef, 2),
    },
    {
      name: 'one-event run cycle after 10,000 done vs the reference (this run; the issue asks it of each of three runs)',
      measure: 'Vigil runs/s ÷ Python runs/s, per repetition',
      goal: '>= 3x',
      value: cycleVsRef,
      unit: 'x',
      pass: atLeast(cycleVsRef, 3),
    },
    {
      name: "the one-event cycle's floor vs the reference (informational: the most any code with Vigil's schema and commits could show; the reference makes three durable commits per run, Vigil one)",
      measure: 'floor runs/s ÷ Python runs/s, per repetition',
      goal: '>= 3x',
      value: cycleFloorVsRef,
      unit: 'x',
      pass: atLeast(cycleFloorVsRef, 3),
    },
    {
      name: 'one-event run cycle after 10,000 done vs its floor (informational: what Vigil keeps above its commits, the fence, the repairs, the ready index)',
      measure: 'Vigil runs/s ÷ floor runs/s, per repetition',
      goal: '>= 0.8x',
      value: cycleVsFloor,
      unit: 'x',
      pass: atLeast(cycleVsFloor, 0.8),
    },
    {
      name: 'single-event ingest vs the bare one-row commit floor',
      measure: 'Vigil events/s ÷ bare one-row commits/s on a fresh file, per repetition',
      goal: '>= 0.9x',
      value: ingestVsFloor,
      unit: 'x',
      pass: atLeast(ingestVsFloor, 0.9),
    },
    {
      name: "a dispatcher's pass, one held message in each of 1,000 inboxes, vs the reference's dispatch of one message",
      measure: 'Python ms per message ÷ Vigil ms per message, per repetition (each side: one durable commit per message)',
      goal: '>= 1x',
      value: spreadVsRef,
      unit: 'x',
      pass: atLeast(spreadVsRef, 1),
    },
    {
      name: "a dispatcher's pass, one held message in each of 1,000 inboxes, vs its floor (open, two commits, close, per file)",
      measure: 'floor ms per message ÷ Vigil ms per message, per repetition',
      goal: `>= ${SPREAD_VS_FLOOR}x`,
      value: spreadVsFloor,
      unit: 'x',
      pass: atLeast(spreadVsFloor, SPREAD_VS_FLOOR),
    },
    {
      name: "the pass's floor vs the reference's dispatch of one message (informational: the most a store that opens and closes each file could show)",
      measure: 'Python ms per message ÷ floor ms per message, per repetition',
      goal: '>= 1x',
      value: spreadFloorVsRef,
      unit: 'x',
      pass: atLeast(spreadFloorVsRef, 1),
    },
    {
      name: 'single-event ingest, 64 deliveries in flight (group commit), vs the reference (informational)',
      measure: 'Vigil events/s with 64 ingest calls outstanding ÷ Python single-event events/s (it takes deliveries one transaction at a time)',
      goal: '>= 1.2x',
      value: concurrentVsRef,
      unit: 'x',
      pass: atLeast(concurrentVsRef, 1.2),
    },
    {
      name: 'one-event run cycle after 10,000 done vs on an empty inbox (issue 2)',
      measure: 'Vigil runs/s after 10,000 done ÷ Vigil runs/s empty',
      goal: '>= 0.8x',
      value: cycleDoneVsEmpty,
      unit: 'x',
      pass: atLeast(cycleDoneVsEmpty, 0.8),
    },
    {
      name: 'ingestMany vs single-event ingest, per event (issue 2)',
      measure: 'Vigil ingestMany events/s ÷ Vigil ingest events/s',
      goal: '>= 20x',
      value: manyVsSingle,
      unit: 'x',
      pass: atLeast(manyVsSingle, 20),
    },
    {
      // A fast disk makes single commits cheap and leaves batches bound by the rows' own work: the ratio is the disk's as much as the code's.
      name: "the same ratio between the two floors (informational: the most any code on this schema and durability could show)",
      measure: "ingestMany's floor events/s ÷ bare one-row commits/s, per repetition",
      goal: '>= 20x',
      value: manyFloorVsSingleFloor,
      unit: 'x',
      pass: atLeast(manyFloorVsSingleFloor, 20),
    },
    {
      name: 'scheduler pass, 1,000 of 100,000 due vs 1,000 of 1,000 due (issue 2)',
      measure: 'Vigil ms (1,000 of 100,000) ÷ Vigil ms (1,000 of 1,000), per repetition',
      goal: '<= 3x',
      value: schedBigVsSmall,
      unit: 'x',
      pass: atMost(schedBigVsSmall, 3),
    },
    {
      name: 'idle scheduler pass over 100,000 timers (issue 2)',
      measure: 'Vigil, median of all idle passes',
      goal: '< 1 ms',
      value: idle,
      unit: 'ms',
      pass: idle === null ? null : idle < 1,
    },
  ];
}
