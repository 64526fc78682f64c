/**
 * The agent a service runs: the module the config's `agent` names (its
 * default export, made with defineAgent), or the built-in demo (src/demo/).
 */
import { defineAgent, type Agent, type AgentDefinition } from '../agent/agent.js';
import { ConfigError } from '../config/config-error.js';
import { defaultExport, importModule } from '../config/import-module.js';
import type { DemoSettings } from '../config/resolve-config.js';
import { createDemo } from '../demo/demo.js';

export interface LoadedAgent {
  agent: Agent;
  /** Where the demo agent records refunds; null for a user's agent. */
  refundsFile: string | null;
}

/** How the module is imported: importModule, or `vigil dev`'s import that reads it afresh. */
export type ModuleImporter = (path: string) => Promise<Record<string, unknown>>;

/** The config's agent module, or the demo with `demo`'s settings when it names none. */
export async function loadAgent(path: string | undefined, storeUrl: string, demo: DemoSettings = { claude: null }): Promise<LoadedAgent> {
  if (path === undefined) return createDemo(storeUrl, demo.claude);
  return { agent: await loadAgentModule(path), refundsFile: null };
}

/** The agent `path` default-exports, checked as defineAgent checks one. */
export async function loadAgentModule(path: string, importer: ModuleImporter = importModule): Promise<Agent> {
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
    return defineAgent({
      name: typeof agent.name === 'string' ? agent.name : 'agent',
      ...(agent.tools === undefined ? {} : { tools: agent.tools }),
      ...(agent.permissions === undefined ? {} : { permissions: agent.permissions }),
      ...(agent.screen === undefined ? {} : { screen: agent.screen.bind(agent) }),
      ...(agent.route === undefined ? {} : { route: agent.route.bind(agent) }),
      run: agent.run.bind(agent),
    });
  } catch (error) {
    throw new ConfigError(`agent: ${path}: ${(error as Error).message}`, [], { cause: error });
  }
}
