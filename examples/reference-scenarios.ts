/**
 * The eight failure scenarios from the article Vigil's design comes from,
 * against a temporary SQLite store (or the PostgreSQL URL given). The
 * scenarios themselves live in src/scenarios/ so `vigil demo` plays the
 * same ones; this file is the runnable example.
 *
 *   npm run scenarios                      # SQLite in a temporary directory
 *   npm run scenarios -- postgres://...    # the same against PostgreSQL
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore } from '../src/index.js';
import { runScenarios, type StoreFactory } from '../src/scenarios/reference-scenarios.js';

export { runScenarios, type StoreFactory };

async function main(): Promise<void> {
  const url = process.argv[2];
  let dir: string | undefined;
  const makeStore: StoreFactory = async (clock) => {
    if (url !== undefined) return openStore(url, { clock });
    dir = mkdtempSync(join(tmpdir(), 'vigil-scenarios-'));
    return openStore(`sqlite:${dir}`, { clock });
  };
  try {
    for (const line of await runScenarios(makeStore, `scenarios-${Date.now()}`)) console.log(line);
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
