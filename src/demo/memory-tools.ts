/**
 * Memory as tools the model can call: remember, recall, forget, and list
 * what it knows. They write through ctx.memory, so what the model stores is
 * saved with the run's finish like everything else, under the same limits.
 * Like any tool they need a permission: `memoryPermissions` allows all four.
 */
import type { Permissions } from '../agent/permissions.js';
import { defineTool, type Tool } from '../agent/tools.js';

export function memoryTools(): Tool[] {
  return [
    defineTool<{ key: string; value: unknown }>({
      name: 'remember',
      description: 'Store a fact for later runs under a short key (replaces what the key held).',
      inputSchema: { type: 'object', properties: { key: { type: 'string' }, value: {} }, required: ['key', 'value'] },
      run: async ({ key, value }, call) => {
        await call.memory.set(key, value);
        return { remembered: key };
      },
    }),
    defineTool<{ key: string }>({
      name: 'recall',
      description: 'Read the fact stored under a key (null when there is none).',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      run: async ({ key }, call) => ({ key, value: (await call.memory.get(key)) ?? null }),
    }),
    defineTool<{ key: string }>({
      name: 'forget',
      description: 'Delete the fact stored under a key.',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      run: async ({ key }, call) => ({ key, forgotten: await call.memory.delete(key) }),
    }),
    defineTool<Record<string, never>>({
      name: 'list_memory',
      description: 'List every stored key and value.',
      inputSchema: { type: 'object', properties: {} },
      run: async (_input, call) => call.memory.list(),
    }),
  ];
}

export const memoryPermissions: Permissions = { remember: 'allow', recall: 'allow', forget: 'allow', list_memory: 'allow' };
