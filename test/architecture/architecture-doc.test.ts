/**
 * ARCHITECTURE.md and the design notes stay true to the tree: every path
 * they name exists, the layer table lists the layers the import-graph test
 * holds the code to, and a webhook provider's or a channel's kind is
 * dispatched on only where "Where to add" says (so adding one touches the
 * files it lists, and no switch elsewhere is forgotten).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/child-processes.js';
import { LAYERS } from './layers.js';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');
const DOCUMENTS = ['ARCHITECTURE.md', ...readdirSync(join(REPO_ROOT, 'docs/design')).map((name) => `docs/design/${name}`)];
const ROOTS = ['src/', 'test/', 'docs/', 'bench/', 'chaos/', 'scripts/', 'examples/'];

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(REPO_ROOT.length + 1));
}
const KNOWN_NAMES = new Set([...filesUnder('src'), ...filesUnder('test')].map((file) => file.split('/').at(-1)!));

/** Backticked tokens that are paths: from the repository's root, or a bare file name. Placeholders (`<provider>`) are left out. */
function pathsIn(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((match) => match[1]!)
    .filter((token) => !/[<>*{}]/.test(token))
    .filter((token) => ROOTS.some((root) => token.startsWith(root)) || /^[\w.-]+\.(ts|md|sql)$/.test(token));
}

describe('the architecture documents', () => {
  it.each(DOCUMENTS)('%s: every path it names exists', (file) => {
    const missing = pathsIn(read(file)).filter((path) => (path.includes('/') ? !existsSync(join(REPO_ROOT, path.replace(/[.,:;]$/, ''))) : !KNOWN_NAMES.has(path)));
    expect(missing).toEqual([]);
  });

  it('ARCHITECTURE.md lists the layers, bottom first, that test/architecture/layers.ts holds src/ to', () => {
    const text = read('ARCHITECTURE.md');
    const table = text.slice(text.indexOf('## Layers'), text.indexOf('## Invariants'));
    const names = [...table.matchAll(/^\| ([a-z ]+) \| /gm)].map((match) => match[1]!).filter((name) => name !== 'layer');
    expect(names).toEqual(LAYERS.map((layer) => layer.name));
  });
});

describe('a webhook provider or a channel kind', () => {
  const KINDS = ['github', 'stripe', 'standard-webhooks', 'hmac', 'slack', 'email', 'webhook', 'console'];
  // The registries ARCHITECTURE.md's "Where to add" names, and the config's schema beside them.
  const REGISTRIES = ['src/http/webhooks/index.ts', 'src/channels/create-channels.ts', 'src/config/schema.ts'];

  it('is dispatched on (`case`, `type ===`) only in its registry and the config schema', () => {
    const pattern = new RegExp(`(?:case|type ===|type !==) '(?:${KINDS.join('|')})'`);
    const elsewhere = filesUnder('src').filter((file) => file.endsWith('.ts') && !REGISTRIES.includes(file) && pattern.test(read(file)));
    expect(elsewhere).toEqual([]);
  });
});
