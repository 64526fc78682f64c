// tsc emits only JavaScript: the SQL migrations and the dashboard's assets
// (its stylesheet and browser script) travel beside it into dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.sql') || path.includes(`${sep}assets${sep}`)) cpSync(path, join('dist', relative('src', path)));
  }
}
walk('src');
