// tsc emits only JavaScript; the SQL migrations travel beside it into dist/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.sql')) cpSync(path, join('dist', relative('src', path)));
  }
}
walk('src');
