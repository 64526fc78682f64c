// tsc emits only JavaScript: the SQL migrations and the dashboard's assets
// (its stylesheet and browser script) travel beside it into dist/, and so
// do the files `vigil init` writes (the plain-agent example; see
// src/cli/init/template.ts).
import { cpSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.sql') || path.includes(`${sep}assets${sep}`)) cpSync(path, join('dist', relative('src', path)));
  }
}
walk('src');

// npm leaves `.gitignore` files out of a package: it travels as `gitignore`.
const TEMPLATE = ['agent.ts', 'agent.test.ts', 'README.md', 'tsconfig.json', '.gitignore'];
const target = join('dist', 'cli', 'init', 'template');
mkdirSync(target, { recursive: true });
for (const name of TEMPLATE) cpSync(join('examples', 'plain-agent', name), join(target, name === '.gitignore' ? 'gitignore' : name));
