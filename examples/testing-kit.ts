/**
 * The testing kit's first example: the eight reference scenarios (the
 * article's failure stories, src/scenarios/reference-scenarios.ts, also run
 * by `npm run scenarios` and `vigil demo`), on vigil-agents/testing, the way you
 * would write your own agent's:
 *
 *   throwawayStore()  a SQLite store in a temporary directory (or a fresh
 *                     PostgreSQL schema), on a fake clock the script moves
 *   crashingStore()   scenario 5's poison event kills every worker that claims
 *                     it (the 'after-claim' crash point)
 *   runOnce()         one worker turn through the runtime's own code path
 *
 * Prints exactly what the reference script prints (test/testing/example.test.ts).
 *
 *   npx tsx examples/testing-kit.ts                    # SQLite in a temporary directory
 *   npx tsx examples/testing-kit.ts postgres://...     # a throwaway schema in that database
 */
import { pathToFileURL } from 'node:url';
import { runScenarios } from '../src/scenarios/reference-scenarios.js';
import { throwawayStore, type ThrowawayStore } from '../src/testing/index.js';

const LEASE_TTL = 120_000;

/** Runs the eight scenarios on a throwaway store (SQLite, or a schema in `url`) and returns the printed lines. */
export async function runKitScenarios(url?: string): Promise<string[]> {
  let kit: ThrowawayStore | undefined;
  try {
    return await runScenarios(async (_now, clock) => {
      kit = await throwawayStore({ clock, leaseTtlMs: LEASE_TTL, ...(url === undefined ? {} : { url }) });
      return kit.store;
    });
  } finally {
    await kit?.close(); // removes the directory or drops the schema
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await runKitScenarios(process.argv[2])) console.log(line);
}
