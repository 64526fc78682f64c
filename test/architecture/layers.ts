/**
 * The layers of src/, bottom first, as ARCHITECTURE.md draws them: a module
 * may import modules of its own layer and of the layers below it, never one
 * above (type-only imports included: a circle of types is still a circle).
 * Each layer is a list of path prefixes under src/; the first layer that
 * claims a file is its layer.
 */
export interface Layer {
  name: string;
  /** Files (`errors.ts`) and folders (`store/`) under src/. */
  paths: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  // The floor: the error type, time, the crypto helpers, the event map and the store contract.
  { name: 'floor', paths: ['errors.ts', 'clock.ts', 'crypto.ts', 'events.ts', 'store/contract.ts', 'store/contract/'] },
  { name: 'store', paths: ['store/'] },
  { name: 'observability', paths: ['observability/'] },
  { name: 'net', paths: ['net/'] },
  { name: 'agent', paths: ['agent/'] },
  // The frameworks' adapters (vigil-agents/claude-agent-sdk, /ai-sdk, /mcp): entries of their own, imported by nothing in src/.
  { name: 'adapters', paths: ['adapters/'] },
  { name: 'channels', paths: ['channels/'] },
  { name: 'runtime', paths: ['runtime/'] },
  // The HTTP layer in three: the parts every route and verifier reads requests with, the webhook
  // providers' verifiers, then the routes and the app that wire them.
  { name: 'http parts', paths: ['http/http-error.ts', 'http/header-values.ts', 'http/read-body.ts', 'http/html.ts'] },
  { name: 'webhooks', paths: ['http/webhooks/'] },
  { name: 'http', paths: ['http/'] },
  { name: 'dashboard', paths: ['dashboard/'] },
  { name: 'config', paths: ['config/'] },
  { name: 'proxy', paths: ['proxy/'] },
  { name: 'demo', paths: ['demo/'] },
  { name: 'testing', paths: ['testing/'] },
  { name: 'scenarios', paths: ['scenarios/'] },
  { name: 'service', paths: ['service/'] },
  { name: 'cli', paths: ['cli/'] },
  { name: 'public', paths: ['index.ts'] },
];

/** The index of the layer `file` (a path under src/) belongs to; -1 when none claims it. */
export function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)));
}

/**
 * The store's doors: what a module outside src/store/ may import from it.
 * The contract (types), and store/index.ts (opening stores, store URLs, the
 * engine's checks other layers reuse). store/seam.ts is the testing kit's
 * way below the engine, for src/testing/ only.
 */
export function storeDoorAllows(from: string, to: string): boolean {
  if (!to.startsWith('store/') || from.startsWith('store/')) return true;
  if (to === 'store/index.ts' || to === 'store/contract.ts' || to.startsWith('store/contract/')) return true;
  return to === 'store/seam.ts' && from.startsWith('testing/');
}

/** The backends' folders: only their own files, and the store's door to them, name them. */
export const BACKENDS = ['store/sqlite/', 'store/postgres/'] as const;
export const BACKEND_DOORS = ['store/backends.ts', 'store/seam.ts'] as const;
