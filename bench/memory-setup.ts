/**
 * What the memory family (bench/memory.ts) runs against: the package built
 * as it is published (tsc into a scratch folder, plain `node`, no tsx
 * loader in the process), and data directories of many idle inboxes.
 *
 * An idle inbox is one made through the API (an event run to done, its
 * reply sent, a daily digest timer due in a day), copied: the same template as the tick
 * benchmark (service-tick.ts), each copy listed in the ready index with the
 * template's own entry. Past `distinctFiles` names, each further name is a
 * hard link to one of the copies: 100,000 copies of a 110 KB file would be
 * 11 GB of writes on a shared disk per run. An idle inbox's file is opened
 * only by the rebuild after a boot, which reads one name after another
 * (each its own connection, WAL and shared-memory file), so links cost the
 * server what copies would; the activity phase writes only to files that
 * have no other name.
 */
import { spawnSync } from 'node:child_process';
import { constants, copyFileSync, cpSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openStore } from '../src/index.js';
import { READY_INDEX_FILE } from '../src/store/sqlite/ready-index.js';
import { makeTemplate } from './service-tick.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function memoryInboxName(i: number): string {
  return `idle-${String(i).padStart(6, '0')}`;
}

/**
 * `npm run build`'s output, into `<scratch>/pkg/dist` (tsc, then the SQL
 * migrations and assets beside it, as scripts/copy-assets.mjs does), with
 * a package.json that makes it ESM and the checkout's node_modules linked
 * beside it. Returns the CLI's path.
 */
export function buildPackage(scratch: string): string {
  const pkg = join(scratch, 'pkg');
  const dist = join(pkg, 'dist');
  const tsc = spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--outDir', dist, '--sourceMap', 'false', '--declaration', 'false'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (tsc.status !== 0) throw new Error(`memory: tsc failed (${tsc.status}):\n${tsc.stdout}${tsc.stderr}`);
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.sql') || path.includes(`${sep}assets${sep}`)) cpSync(path, join(dist, relative(join(REPO, 'src'), path)));
    }
  };
  walk(join(REPO, 'src'));
  // dist/cli/main.js reads its version from ../../package.json, as in the published package.
  const { name, version, type } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; version: string; type: string };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name, version, type, private: true }));
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
  return join(dist, 'cli', 'main.js');
}

/** Setup figures, for the report. */
export interface BuiltStore {
  inboxes: number;
  distinctFiles: number;
  templateBytes: number;
  seconds: number;
}

/**
 * `n` idle inboxes in `dir`, listed in the ready index, this boot recorded:
 * `distinctFiles` copies of the template, the rest hard links to copies.
 * The first `unlinked` names are never linked to: the activity phase writes
 * only to them. (Two names of one file would each get their own WAL and
 * shared-memory file, and writes through both would corrupt it.)
 */
export async function buildIdleStore(dir: string, templateDir: string, n: number, distinctFiles: number, unlinked: number): Promise<BuiltStore> {
  const started = performance.now();
  const template = await makeTemplate(templateDir, { sent: true });
  if (template.row.send_at !== null || template.row.wake_at === null || template.row.wake_at < Date.now()) throw new Error('memory: the template inbox is not idle');
  mkdirSync(dir, { recursive: true });
  // Opened on the empty directory first: the index file records this boot with nothing to re-derive.
  await (await openStore(`sqlite:${dir}`)).close();
  const distinct = Math.min(n, distinctFiles);
  if (distinct < n && distinct <= unlinked) throw new Error(`memory: ${n} names need more than ${unlinked} distinct files to link to`);
  for (let i = 0; i < n; i++) {
    const file = join(dir, `${memoryInboxName(i)}.db`);
    if (i < distinct) copyFileSync(template.file, file, constants.COPYFILE_FICLONE);
    else linkSync(join(dir, `${memoryInboxName(unlinked + ((i - distinct) % (distinct - unlinked)))}.db`), file);
  }
  const db = new Database(join(dir, READY_INDEX_FILE));
  try {
    const insert = db.prepare('INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact, dead) VALUES (?, ?, ?, ?, ?, ?)');
    const { wake_at, send_at, seq, exact, dead } = template.row;
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(memoryInboxName(i), wake_at, send_at, seq, exact, dead);
    })();
  } finally {
    db.close();
  }
  return { inboxes: n, distinctFiles: distinct, templateBytes: statSync(template.file).size, seconds: (performance.now() - started) / 1000 };
}

/** Makes the next open re-derive the whole index, as the first open after a machine boot does. */
export function forgetRebuild(dir: string): void {
  const db = new Database(join(dir, READY_INDEX_FILE));
  try {
    db.prepare('DELETE FROM rebuilt').run();
  } finally {
    db.close();
  }
}

/** The boot the index was last re-derived in (undefined: not yet). */
export function rebuiltInBoot(dir: string): string | undefined {
  const db = new Database(join(dir, READY_INDEX_FILE), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT boot FROM rebuilt WHERE one = 1').pluck().get() as string | undefined;
  } finally {
    db.close();
  }
}

/** Inboxes the ready index says have work or a send due now: 0 once every delivery sent in was run and its reply sent. */
export function dueInboxes(dir: string): number {
  const db = new Database(join(dir, READY_INDEX_FILE), { readonly: true, fileMustExist: true });
  try {
    const now = Date.now();
    return db.prepare('SELECT count(*) FROM wake WHERE wake_at <= ? OR send_at <= ?').pluck().get(now, now) as number;
  } finally {
    db.close();
  }
}
