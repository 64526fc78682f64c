/** Plain output for people, JSON for scripts (`--json`). */
import { isReadableInstant } from '../store/index.js';

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A stored time as ISO 8601, or "out of range (<ms>)" for one no rule could
 * have written (an older version's row, or one edited by hand): one bad row
 * must not end the listing with "Invalid time value".
 */
export function isoTime(ms: number): string {
  return isReadableInstant(ms) ? new Date(ms).toISOString() : `out of range (${ms})`;
}

/** Left-aligned columns separated by two spaces. */
export function table(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  for (const row of cells) print(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd());
}
