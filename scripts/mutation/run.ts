/**
 * `npm run mutation [-- name…]`: Stryker over each target of
 * scripts/mutation/targets.ts in turn (all, or those named), then one table
 * of the mutation score per file. Reports land in reports/mutation/
 * (<name>.html, <name>.json); the run exits 1 when a file scores under
 * the break threshold.
 *
 * Not part of `npm test`: it runs each target's tests once per mutant.
 */
import { Stryker } from '@stryker-mutator/core';
import { targets } from './targets.js';

type MutantResult = Awaited<ReturnType<Stryker['runMutationTest']>>[number];

/** TESTING.md's target: at least this score on every file. */
const BREAK_BELOW = 80;

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !targets.some((t) => t.name === name));
if (unknown.length > 0) {
  console.error(`unknown target(s): ${unknown.join(', ')}; known: ${targets.map((t) => t.name).join(', ')}`);
  process.exit(2);
}
const chosen = wanted.length === 0 ? targets : targets.filter((t) => wanted.includes(t.name));

const rows: { file: string; killed: number; survived: number; noCoverage: number; timeout: number; score: number }[] = [];
for (const target of chosen) {
  const rules = target.rules === undefined ? '' : ` (conformance rules: ${target.rules.join(', ')})`;
  console.log(`\n=== ${target.name}: ${target.mutate.join(', ')} (tests: ${target.tests.join(', ')}${rules})`);
  process.env.VIGIL_MUTATION_TESTS = target.tests.join(',');
  // Read by test/conformance/suite.ts in Stryker's test processes, which inherit this environment.
  process.env.VIGIL_CONFORMANCE_RULES = (target.rules ?? []).join(',');
  const stryker = new Stryker({
    mutate: target.mutate,
    testRunner: 'vitest',
    vitest: { configFile: 'vitest.mutation.config.ts', related: false },
    // The runner gets the test files from the config above; Stryker's sandbox copies only what the build needs.
    coverageAnalysis: 'perTest',
    concurrency: 2,
    timeoutMS: 30_000,
    reporters: ['clear-text', 'html', 'json', 'progress'],
    htmlReporter: { fileName: `reports/mutation/${target.name}.html` },
    jsonReporter: { fileName: `reports/mutation/${target.name}.json` },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
    ignorePatterns: ['dist', 'reports', 'data', '.stryker-tmp'],
    thresholds: { high: 90, low: BREAK_BELOW, break: null },
  });
  const results = await stryker.runMutationTest();
  rows.push(...scorePerFile(results));
}

console.log('\n| file | score | killed | timeout | survived | no coverage |\n| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(`| \`${row.file}\` | ${row.score.toFixed(1)}% | ${row.killed} | ${row.timeout} | ${row.survived} | ${row.noCoverage} |`);
const low = rows.filter((row) => row.score < BREAK_BELOW);
if (low.length > 0) {
  console.log(`\nunder ${BREAK_BELOW}%: ${low.map((row) => row.file).join(', ')}`);
  process.exitCode = 1;
}

/** Stryker's score: detected (killed + timeout) over valid mutants (also survived and no coverage). */
function scorePerFile(results: MutantResult[]) {
  const byFile = new Map<string, MutantResult[]>();
  for (const result of results) byFile.set(result.fileName, [...(byFile.get(result.fileName) ?? []), result]);
  return [...byFile.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, mutants]) => {
      const count = (status: MutantResult['status']) => mutants.filter((m) => m.status === status).length;
      const killed = count('Killed');
      const timeout = count('Timeout');
      const survived = count('Survived');
      const noCoverage = count('NoCoverage');
      const valid = killed + timeout + survived + noCoverage;
      return { file: file.replace(`${process.cwd()}/`, ''), killed, timeout, survived, noCoverage, score: valid === 0 ? 100 : ((killed + timeout) / valid) * 100 };
    });
}
