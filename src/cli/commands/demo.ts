/**
 * `vigil demo`: the eight failure scenarios (src/scenarios/), against a
 * temporary SQLite store on a fake clock, each with a line on what it shows.
 * Values print as JavaScript writes them (`true`, `null`, `["msg-3"]`), not
 * as the article's Python reference does: the reader is a TypeScript user.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { print } from '../print.js';

const WHY: Record<string, string> = {
  '1': 'A provider retries a webhook it already delivered. Events are keyed by (source, sourceId): the retry stores nothing.',
  '2': 'Two workers wake for the same inbox. The lease lets exactly one in.',
  '3': 'Messages that arrive close together are handled in one run, not three.',
  '4': "A worker stalls past its lease. Another takes over with a higher generation; the stalled one's late finish is refused, so the reply goes out once.",
  '5': 'An event that crashes every worker is retried with backoff, counted at claim, and parked as dead; the healthy event beside it still gets done.',
  '6': 'A second scheduler pass finds nothing due; a replayed occurrence is a duplicate; after a three-day outage the missed days become one event that says how many it skipped.',
  '7': 'Approvals expire even when the scheduler never ran, and only one answer ever stands.',
  '8': 'The outbox holds what runs say and sends one combined message at most once an hour.',
};

export function demoCommand(): Command {
  return new Command('demo').description('play the eight failure scenarios, narrated, against a temporary SQLite store').action(async () => {
    const [{ runScenarios }, { openStore, sqliteStoreUrl }] = await Promise.all([import('../../scenarios/reference-scenarios.js'), import('../../store/index.js')]);
    const dir = mkdtempSync(join(tmpdir(), 'vigil-demo-'));
    try {
      print(`Vigil demo: eight failure scenarios against a temporary SQLite store (${dir}), on a fake clock.`);
      const lines = await runScenarios((clock) => openStore(sqliteStoreUrl(dir), { clock }), 'agent', 'js');
      for (const line of lines) {
        const heading = /^(\d)\. /.exec(line);
        if (heading !== null) {
          print('');
          print(line);
          print(`   why: ${WHY[heading[1]!] ?? ''}`);
        } else {
          print(line);
        }
      }
      print('');
      print('All eight scenarios ran; the temporary store is removed.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
