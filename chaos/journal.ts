/**
 * What worker processes saw, written as they see it: one JSON line per
 * fact, appended with a synchronous write, so a line is in the kernel's
 * hands before the next step and survives the SIGKILL that follows it.
 * The parent reads every worker's file after the run (a line cut short by
 * a kill is skipped).
 *
 * Lease times are read off the clock the stores decide leases with: the
 * machine's wall clock (Date.now for SQLite; PostgreSQL's clock_timestamp()
 * reads the same kernel clock). One clock for every process, and the right
 * one for the overlap check: a monotonic clock is not what either store
 * compares with, and where the wall clock was stepped against it (seen once
 * in CI: 3.3 ms within a 2 s lease) the check saw an overlap the store,
 * which can only honour its own clock, never granted.
 */
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type JournalRecord =
  /** acquire returned a generation: held from `gotAt`, until `askedAt` + TTL unless renewed or released. */
  | { k: 'acquire'; inbox: string; holder: string; gen: number; askedAt: number; gotAt: number }
  /** The worker is about to release: it stops counting on the lease from `at`. */
  | { k: 'release'; inbox: string; holder: string; gen: number; at: number }
  /**
   * About to send a run step that may end the lease in its commit
   * (finishAndClaim releases it when nothing is left): with no `finish`
   * after it, the worker died before it could say, and the lease counts as
   * released from `at`, as a release is dated when it is asked for.
   */
  | { k: 'stepping'; inbox: string; holder: string; gen: number; at: number }
  /** About to claim: with no `claim` after it, the worker died before it could say what it claimed. */
  | { k: 'claiming'; inbox: string; holder: string; gen: number }
  /**
   * About to acquire and claim in one call, whose generation is known only
   * when it answers: with no `acquired` after it, the worker died before it
   * could say what it claimed (the call may have committed a claim).
   */
  | { k: 'acquiring'; inbox: string; holder: string }
  /** The acquire-and-claim call answered (its lease and claim are recorded as `acquire` and `claim`). */
  | { k: 'acquired'; inbox: string; holder: string }
  /** A batch claimed, possibly empty (for reading a failed run: which events went together). */
  | { k: 'claim'; inbox: string; holder: string; gen: number; ids: number[]; events: string[]; attempts: number[] }
  /** A finish and what the store said. */
  | { k: 'finish'; inbox: string; holder: string; gen: number; ids: number[]; ok: boolean; error?: string }
  /** The parent armed a crash point here. */
  | { k: 'armed'; holder: string; point: string }
  /** A batch reached the channel. */
  | { k: 'sent'; inbox: string; holder: string; ids: number[]; bodies: string[] }
  /** The worker kills itself now: at an armed point, or a poison event. */
  | { k: 'crash'; holder: string; point: string; inbox: string | null; event?: string };

/** Whole milliseconds, like the stores' own `now`: a grant asked for at `t` expires no earlier than `t` + TTL on this clock. */
export const leaseClockMs = (): number => Date.now();

export class Journal {
  private readonly fd: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  write(record: JournalRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Every record of every `*.jsonl` file in `dir`. */
export function readJournals(dir: string): JournalRecord[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .flatMap((name) => readJournal(join(dir, name)));
}

export function readJournal(file: string): JournalRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return []; // killed before it opened its journal
  }
  const records: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch {
      // The last line of a killed worker may be cut short: it never happened.
    }
  }
  return records;
}
