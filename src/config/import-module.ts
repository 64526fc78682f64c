/**
 * Imports a user's module (a config file or an agent) by path: `.js`/`.mjs`
 * through Node, `.ts`/`.mts` through tsx's scoped loader, so `vigil serve`
 * built into dist/ still reads a TypeScript config without a build step of
 * the user's own.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function importModule(file: string, baseDir = process.cwd()): Promise<Record<string, unknown>> {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  const url = pathToFileURL(path).href;
  if (/\.(c|m)?ts$/.test(path)) {
    // Imported lazily: the tsx loader costs ~50 ms and is needed only here.
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(url)) as Record<string, unknown>;
}

/** The module's default export, unwrapping the `{ default: { default } }` a CommonJS-compiled module can give. */
export function defaultExport(module: Record<string, unknown>): unknown {
  let value = module.default;
  if (typeof value === 'object' && value !== null && 'default' in value && Object.keys(value).length === 1) {
    value = (value as { default: unknown }).default;
  }
  return value;
}
