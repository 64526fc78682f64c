/**
 * npm run soak [-- options]   (`--help` lists them; not part of `npm test`)
 *
 * The soak benchmark (issue 21, item 3): hours-of-service behaviour in
 * minutes. Steady offered load, 1.5x, an idle transaction holding the xmin
 * horizon, a fault-free stretch, SIGKILLed workers, recovery (phases.ts);
 * graphile-worker after Vigil (or beside it) on PostgreSQL. Samples every 10 s to
 * bench/results/*.jsonl, SVG plots to docs/soak/, and the "## Soak" section
 * of BENCHMARKS.md (report.ts).
 *
 *   npm run soak -- --minutes 30 --store postgres    the issue's run
 *   npm run soak -- --minutes 3 --store sqlite       a smoke run on SQLite
 *
 * Exit 1 when an invariant breaks on Vigil's side (an event lost or done
 * twice; the store's own counts disagree), or with --strict when a target
 * is missed; 130 when interrupted (Ctrl-C stops every process it started,
 * by PID, and the server, before it exits).
 */
import { describeChecks } from './checks.js';
import { parseConfig } from './config.js';
import { renderStoreSection, writeSoakSection, type StoreRun } from './report.js';
import { soakStore } from './soak-store.js';

const started = Date.now();
const log = (line: string): void => {
  process.stderr.write(`[soak ${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}\n`);
};

async function main(): Promise<number> {
  const config = parseConfig(process.argv.slice(2));
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    // A terminal's Ctrl-C reaches tsx and us both, and tsx passes it on: one stop is enough.
    if (interrupt.signal.aborted) return;
    log(`${signal}: stopping every process this run started`);
    interrupt.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  log(
    `soak: ${config.stores.join(' then ')}, ${config.minutes} minutes of phases per store, ${config.rate} events/s over ${config.inboxes} inboxes, ` +
      `${config.workers} worker processes per side` +
      (config.graphile === 'off' ? '' : `, graphile-worker ${config.graphile === 'beside' ? 'beside Vigil' : 'after Vigil'} on PostgreSQL`),
  );
  const runs: StoreRun[] = [];
  for (const store of config.stores) {
    try {
      runs.push(await soakStore(config, store, interrupt.signal, log));
    } catch (error) {
      if (interrupt.signal.aborted) return 130;
      throw error;
    }
  }

  let broken = false;
  let missed = false;
  for (const run of runs) {
    process.stdout.write(`\n${run.store}:\n${describeChecks(run.verdicts)}\n`);
    for (const check of run.verdicts.flatMap((v) => v.checks)) {
      if (check.pass !== false) continue;
      if (check.invariant) broken = true;
      else if (check.side === 'vigil') missed = true;
    }
  }
  if (config.out !== null) {
    writeSoakSection(
      config.out,
      runs.map((run) => ({ store: run.store, text: renderStoreSection(run) })),
    );
    log(`wrote the Soak section of ${config.out} and the plots in ${config.plotsDir}`);
  }
  if (broken) log('an invariant broke: see BROKEN above');
  return broken || (config.strict && missed) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
