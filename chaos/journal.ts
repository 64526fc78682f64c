/**
 * What worker processes saw, written as they see it: one JSON line per
 * fact, appended with a synchronous write, so a line is in the kernel's
 * hands before the next step and survives the SIGKILL that follows it.
 * The parent reads every worker's file after the run (a line cut short by
 * a kill is skipped).
 *
 * Times are monotonic milliseconds (process.hrtime): one clock for every
 * process on the machine, which is what the lease-overlap check needs.
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

export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

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
