/**
 * BENCHMARKS.md: one `## ` section per benchmark family. A family rewrites
 * only its own section (its heading up to the next `## ` heading), so the
 * other families' figures are kept.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const FILE_HEADER = `# Benchmarks

Figures measured by the project's benchmark scripts. One section per
benchmark family; each script rewrites only its own section (from its
\`## \` heading to the next), so the others are kept.
`;

/** Replaces (or appends) the section that starts with `heading`; `section` includes the heading. */
export function writeBenchmarkSection(file: string, heading: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : FILE_HEADER;
  const lines = current.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  let before = lines;
  let after: string[] = [];
  if (start !== -1) {
    const end = lines.findIndex((line, i) => i > start && /^## /.test(line));
    before = lines.slice(0, start);
    after = end === -1 ? [] : lines.slice(end);
  }
  const next = [...trimTrailing(before), '', ...section.trimEnd().split('\n'), ...(after.length > 0 ? ['', ...after] : [])];
  writeFileSync(file, trimTrailing(next).join('\n') + '\n');
}

function trimTrailing(lines: string[]): string[] {
  const copy = [...lines];
  while (copy.length > 0 && copy[copy.length - 1]?.trim() === '') copy.pop();
  return copy;
}
