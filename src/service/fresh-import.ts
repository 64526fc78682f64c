/**
 * `vigil dev`'s import: the agent module and every module of the project
 * it imports, read afresh. tsx's tsImport loads each call in a namespace of
 * its own, so an edited helper two imports deep is new too (Node's own
 * import() would hand back the cached module).
 *
 * `onFile` hears each project file the import reads (not packages under
 * node_modules: an upgrade there needs a restart). tsx reports them from
 * its loader thread, so some may arrive after the import resolved: the
 * caller keeps listening rather than reading a list once.
 *
 * Each call keeps its module tree (and a scoped loader hook) in memory: a
 * development session reloads a few hundred times at most, which is fine
 * for `vigil dev` and why `vigil serve` never does it.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export async function importFresh(file: string, onFile: (path: string) => void, baseDir = process.cwd()): Promise<Record<string, unknown>> {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(path).href, {
    parentURL: import.meta.url,
    onImport: (url: string) => {
      if (!url.startsWith('file:')) return;
      const imported = fileURLToPath(url.replace(/[?#].*$/, ''));
      if (!imported.split(sep).includes('node_modules')) onFile(imported);
    },
  })) as Record<string, unknown>;
}
