/**
 * The files `vigil init` copies. They are the plain-agent example itself
 * (examples/plain-agent/), so the project a user starts from is the one the
 * test suite runs: the build copies them into dist/cli/init/template/; in a
 * checkout, running from the sources, they are read from examples/.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Written as they are. `.gitignore` travels as `gitignore`: npm leaves a package's `.gitignore` files out of it. */
export const TEMPLATE_FILES = ['agent.ts', 'agent.test.ts', 'README.md', 'tsconfig.json', '.gitignore'] as const;
export type TemplateFile = (typeof TEMPLATE_FILES)[number];

/** The name a template file has inside the package's dist/. */
export function packagedName(file: TemplateFile): string {
  return file === '.gitignore' ? 'gitignore' : file;
}

const PACKAGED = new URL('./template/', import.meta.url);
const CHECKOUT = new URL('../../../examples/plain-agent/', import.meta.url);

export async function readTemplate(file: TemplateFile): Promise<string> {
  if (existsSync(fileURLToPath(PACKAGED))) return readFile(new URL(packagedName(file), PACKAGED), 'utf8');
  return readFile(new URL(file, CHECKOUT), 'utf8');
}
