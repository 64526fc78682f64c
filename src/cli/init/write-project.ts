/**
 * `vigil init`'s work: a folder with a runnable, tested agent. It writes
 * into an empty or new folder, or beside an existing package.json (which
 * gains what is missing), and never overwrites a file: if any file it
 * would write exists, it writes nothing and says which.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../exit-codes.js';
import { dependencySpec, mergeManifest, packageName, projectManifest, serviceConfig, type PackageJson } from './manifest.js';
import { readTemplate, TEMPLATE_FILES } from './template.js';

export interface InitOptions {
  /** How package.json names vigil-agents: a range (default ^<this version>), a tarball or a folder. */
  vigilAgents?: string;
  /** Where relative paths in `vigilAgents` start (default process.cwd()). */
  cwd?: string;
}

export interface InitResult {
  dir: string;
  /** Files written, relative to `dir`. */
  written: string[];
  /** package.json entries that existed with another value and were kept. */
  kept: string[];
}

export async function writeProject(target: string, options: InitOptions = {}): Promise<InitResult> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, target);
  const files = [...TEMPLATE_FILES, 'vigil.json'];
  const clashes = files.filter((file) => existsSync(join(dir, file)));
  if (clashes.length > 0) {
    throw new UsageError(`${dir} already has ${clashes.join(', ')}: vigil init writes a new project and overwrites nothing (nothing was written)`);
  }

  const manifestPath = join(dir, 'package.json');
  const wanted = projectManifest(packageName(dir), dependencySpec(options.vigilAgents, dir, cwd));
  let manifest = wanted;
  let kept: string[] = [];
  if (existsSync(manifestPath)) {
    let existing: unknown;
    try {
      existing = JSON.parse(await readFile(manifestPath, 'utf8')) as unknown;
    } catch (error) {
      throw new UsageError(`${manifestPath} is not valid JSON (${(error as Error).message}); fix it or init another folder (nothing was written)`);
    }
    if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
      throw new UsageError(`${manifestPath} is not a JSON object; fix it or init another folder (nothing was written)`);
    }
    ({ merged: manifest, kept } = mergeManifest(existing as PackageJson, wanted));
  }

  // Everything is read before anything is written: a missing template fails with the folder untouched.
  const contents = await Promise.all(TEMPLATE_FILES.map(async (file) => [file, await readTemplate(file)] as const));
  await mkdir(dir, { recursive: true });
  for (const [file, text] of contents) await writeFile(join(dir, file), text, { flag: 'wx' });
  await writeFile(join(dir, 'vigil.json'), `${JSON.stringify(serviceConfig(), null, 2)}\n`, { flag: 'wx' });
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, written: [...TEMPLATE_FILES, 'vigil.json', 'package.json'], kept };
}
