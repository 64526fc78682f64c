/**
 * `vigil dev`'s reloading: watches the agent module and the project files
 * it imports, and after a change (debounced: an editor's save is several
 * events) loads it afresh and hands it to the service, which swaps it in
 * between runs (Service.replaceAgent). A module that fails to load or is
 * not an agent is logged and the running agent stays: a typo mid-edit
 * must not take the service down.
 *
 * Directories are watched, not files: editors save by writing a new file
 * and renaming it over the old one, which ends a watch on the old file.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Logger } from '../observability/logger.js';
import { importFresh } from './fresh-import.js';
import type { Agent } from '../agent/agent.js';
import { loadAgentModule } from './load-agent.js';
import type { Service } from './service.js';

export interface AgentReloaderOptions {
  /** The agent module's absolute path (the config's `agent`). */
  path: string;
  service: Pick<Service, 'replaceAgent'>;
  logger: Logger;
  /** Quiet time after the last change before reloading (default 100 ms). */
  debounceMs?: number;
}

export interface AgentReloader {
  /** The files watched now: the agent module and the project files it imports. */
  readonly files: readonly string[];
  close(): void;
}

/** Loads the agent afresh once (to learn its files) and starts watching them. */
export async function watchAgent(options: AgentReloaderOptions): Promise<AgentReloader> {
  const { path, service, logger, debounceMs = 100 } = options;
  /** The files of the agent that runs: what an edit to means a reload. */
  let files = new Set<string>([path]);
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let reloading: Promise<void> = Promise.resolve();

  const watchDir = (dir: string): void => {
    if (closed || watchers.has(dir)) return;
    const watcher = watch(dir, (_event, name) => {
      if (name !== null && files.has(join(dir, name.toString()))) schedule();
    });
    watcher.on('error', (error) => logger.warn({ dir, err: { message: error.message } }, 'vigil dev: cannot watch this folder'));
    watchers.set(dir, watcher);
  };

  /** A fresh load; its files join the watch as tsx reports them, and become the watched set if it loads. */
  const load = async (): Promise<Agent> => {
    const seen = new Set<string>([path]);
    const onFile = (file: string): void => {
      seen.add(file);
      if (files === seen) watchDir(dirname(file));
    };
    const agent = await loadAgentModule(path, (file) => importFresh(file, onFile));
    files = seen;
    for (const dir of new Set([...seen].map((file) => dirname(file)))) watchDir(dir);
    return agent;
  };

  const reload = async (): Promise<void> => {
    const started = Date.now();
    let agent: Agent;
    try {
      agent = await load();
    } catch (error) {
      logger.error({ file: path, error: (error as Error).message }, 'agent not reloaded: the previous one keeps running');
      return;
    }
    logger.info({ file: path, agent: agent.name }, 'agent changed: swapping it in once the runs in hand finish');
    await service.replaceAgent(agent);
    logger.info({ file: path, ms: Date.now() - started }, 'agent reloaded');
  };

  const schedule = (): void => {
    if (closed) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      reloading = reloading.then(reload).catch((error: unknown) => {
        logger.error({ error: (error as Error).message }, 'agent not reloaded');
      });
    }, debounceMs);
  };

  // The service has loaded the agent already; this load only learns which files to watch.
  watchDir(dirname(path));
  await load().catch(() => undefined);
  logger.info({ agent: relative(process.cwd(), path) || basename(path) }, 'vigil dev: the agent is reloaded when it or a file it imports changes');

  return {
    get files() {
      return [...files];
    },
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
