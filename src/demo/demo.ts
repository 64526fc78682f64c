/**
 * The demo a service runs when its config names no `agent`: the refund
 * demo of the README's quick start (demo-agent.ts), or, when the config
 * found an Anthropic key in the environment, the same demo with Claude
 * deciding (claude-demo-agent.ts). Its refunds go to a ledger file beside
 * the store's inboxes.
 */
import { join, resolve } from 'node:path';
import type { Agent } from '../agent/agent.js';
import { localStoreDir } from '../store/index.js';
import { createClaudeDemoAgent } from './claude-demo-agent.js';
import { createDemoAgent } from './demo-agent.js';

export interface Demo {
  agent: Agent;
  /** Where the demo records its refunds (one JSON line each). */
  refundsFile: string;
}

export interface DemoClaude {
  apiKey: string;
  model?: string;
  baseURL?: string;
}

export function createDemo(storeUrl: string, claude: DemoClaude | null): Demo {
  const refundsFile = demoRefundsFile(storeUrl);
  const agent = claude === null ? createDemoAgent({ refundsFile }) : createClaudeDemoAgent({ refundsFile, ...claude });
  return { agent, refundsFile };
}

/**
 * Beside the inbox files for SQLite (the store ignores files that are not
 * `<inbox>.db`), so one directory holds the whole demo. A store with no
 * directory (PostgreSQL): `./data`, where the demo's SQLite would be,
 * rather than the working directory, which is often a checkout or `/`.
 */
function demoRefundsFile(storeUrl: string): string {
  return join(resolve(localStoreDir(storeUrl) ?? 'data'), 'example-refunds.jsonl');
}
