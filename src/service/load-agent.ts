/**
 * The agent a service runs: the module the config's `agent` names (its
 * default export, made with defineAgent), or the built-in example agent.
 */
import { join, resolve } from 'node:path';
import { defineAgent, type Agent, type AgentDefinition } from '../agent/agent.js';
import { createClaudeExampleAgent } from '../agent/claude-example-agent.js';
import { createExampleAgent } from '../agent/example-agent.js';
import { ConfigError } from '../config/config-error.js';
import { defaultExport, importModule } from '../config/import-module.js';
import { localStoreDir } from '../store/index.js';

export interface LoadedAgent {
  agent: Agent;
  /** Where the example agent records refunds; null for a user's agent. */
  refundsFile: string | null;
}

/** How the module is imported: importModule, or `vigil dev`'s import that reads it afresh. */
export type ModuleImporter = (path: string) => Promise<Record<string, unknown>>;

export async function loadAgent(
  path: string | undefined,
  storeUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  importer: ModuleImporter = importModule,
): Promise<LoadedAgent> {
  if (path === undefined) {
    const refundsFile = exampleRefundsFile(storeUrl);
    // With a key, the same demo with Claude deciding (VIGIL_CLAUDE_MODEL picks the model).
    const apiKey = env.ANTHROPIC_API_KEY;
    if (apiKey !== undefined && apiKey !== '') {
      const model = env.VIGIL_CLAUDE_MODEL;
      const baseURL = env.ANTHROPIC_BASE_URL;
      const agent = createClaudeExampleAgent({ refundsFile, apiKey, ...(model ? { model } : {}), ...(baseURL ? { baseURL } : {}) });
      return { agent, refundsFile };
    }
    return { agent: createExampleAgent({ refundsFile }), refundsFile };
  }
  let module: Record<string, unknown>;
  try {
    module = await importer(path);
  } catch (error) {
    throw new ConfigError(`agent: cannot load ${path}: ${(error as Error).message}`, [], { cause: error });
  }
  const value = defaultExport(module);
  if (typeof value !== 'object' || value === null || typeof (value as { run?: unknown }).run !== 'function') {
    throw new ConfigError(`agent: ${path} must default-export an agent: export default defineAgent({ run(ctx) { … } })`);
  }
  const agent = value as AgentDefinition & { name?: unknown };
  try {
    // Checked again here: a module may export a plain { run } object, or tools and permissions with a typo.
    const checked = defineAgent({
      name: typeof agent.name === 'string' ? agent.name : 'agent',
      ...(agent.tools === undefined ? {} : { tools: agent.tools }),
      ...(agent.permissions === undefined ? {} : { permissions: agent.permissions }),
      ...(agent.screen === undefined ? {} : { screen: agent.screen.bind(agent) }),
      ...(agent.route === undefined ? {} : { route: agent.route.bind(agent) }),
      run: agent.run.bind(agent),
    });
    return { agent: checked, refundsFile: null };
  } catch (error) {
    throw new ConfigError(`agent: ${path}: ${(error as Error).message}`, [], { cause: error });
  }
}

/**
 * Beside the inbox files for SQLite (the store ignores files that are not
 * `<inbox>.db`), so one directory holds the whole demo. With PostgreSQL
 * there is no store directory: `./data`, where the demo's SQLite would be,
 * rather than the working directory, which is often a checkout or `/`.
 */
function exampleRefundsFile(storeUrl: string): string {
  return join(resolve(localStoreDir(storeUrl) ?? 'data'), 'example-refunds.jsonl');
}
