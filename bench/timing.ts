/** Clocks and summaries for the benchmark: wall time from a monotonic clock, medians of repetitions. */

export type TimerStart = bigint;

export function startTimer(): TimerStart {
  return process.hrtime.bigint();
}

export function elapsedSeconds(start: TimerStart): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
