/**
 * The house's rules, checked on the import graph of src/ as madge builds it
 * (type-only imports and dynamic import() included): no circle, no import
 * from a lower layer to a higher one (layers.ts, ARCHITECTURE.md), nothing
 * outside src/store/ reaching past the store's doors, no backend named
 * outside its own folder and the store's door to it, and no store URL taken
 * apart outside src/store/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import madge from 'madge';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/child-processes.js';
import { BACKEND_DOORS, BACKENDS, LAYERS, layerOf, storeDoorAllows } from './layers.js';

const SRC = join(REPO_ROOT, 'src');

let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(SRC, {
    fileExtensions: ['ts'],
    tsConfig: join(REPO_ROOT, 'tsconfig.json'),
    // madge leaves type-only imports in by default; said here because the rule depends on it.
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  graph = result.obj();
  circles = result.circular();
}, 120_000);

const edges = (): Array<[string, string]> => Object.entries(graph).flatMap(([from, tos]) => tos.map((to): [string, string] => [from, to]));

describe('the import graph of src/', () => {
  it('is read whole: every source file is in it, and every import resolves to one', () => {
    const files = Object.keys(graph);
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain('store/contract.ts');
    // An import madge could not resolve would be left out of the graph silently.
    for (const [from, to] of edges()) expect(files, `${from} imports ${to}`).toContain(to);
  });

  it('has no circle', () => {
    expect(circles.map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it('puts every file in a layer', () => {
    expect(Object.keys(graph).filter((file) => layerOf(file) === -1)).toEqual([]);
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward = edges()
      .filter(([from, to]) => layerOf(to) > layerOf(from))
      .map(([from, to]) => `${from} (${LAYERS[layerOf(from)]!.name}) -> ${to} (${LAYERS[layerOf(to)]!.name})`);
    expect(upward).toEqual([]);
  });

  it('reaches into src/store/ only through its doors: the contract, store/index.ts, and store/seam.ts for the testing kit', () => {
    expect(edges().filter(([from, to]) => !storeDoorAllows(from, to)).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it('names a backend folder only from inside it and from the door to the backends', () => {
    const strays = edges().filter(([from, to]) => {
      const backend = BACKENDS.find((folder) => to.startsWith(folder));
      return backend !== undefined && !from.startsWith(backend) && !(BACKEND_DOORS as readonly string[]).includes(from);
    });
    expect(strays.map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it('leaves the adapters to their own entries: nothing else in src/ imports one, so no framework loads unasked', () => {
    expect(edges().filter(([from, to]) => to.startsWith('adapters/') && !from.startsWith('adapters/')).map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the engine ignorant of the backends', () => {
    expect(edges().filter(([from, to]) => from.startsWith('store/engine/') && BACKENDS.some((folder) => to.startsWith(folder)))).toEqual([]);
  });
});

/**
 * A store URL is taken apart in one place (store/store-url.ts): elsewhere,
 * a string, template or pattern that starts with a scheme (`'sqlite:'`,
 * `` `sqlite:${dir}` ``, `/^postgres:/`) is a second parser or builder of
 * the same grammar. Prose that mentions one (`"the store: 'sqlite:<dir>'"`) is fine.
 */
describe('store URLs', () => {
  const SCHEME = /^(sqlite:|postgres(ql)?:\/\/)/;

  function literalsStartingWithAScheme(file: string): string[] {
    const text = readFileSync(join(SRC, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) {
        if (SCHEME.test(node.text)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`);
      } else if (ts.isRegularExpressionLiteral(node)) {
        if (/sqlite|postgres/i.test(node.text)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.text}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  it('are parsed and built only inside src/store/', () => {
    const outside = Object.keys(graph).filter((file) => !file.startsWith('store/'));
    expect(outside.flatMap(literalsStartingWithAScheme)).toEqual([]);
  });
});

/**
 * The environment is read where a config is loaded (src/config/, the CLI's
 * entry, the proxy's own config) and by the one library default that is
 * documented as such (claudeModel's ANTHROPIC_API_KEY); the service and the
 * layers under it get values.
 */
describe('process.env', () => {
  const READERS = ['config/', 'cli/', 'proxy/config.ts', 'agent/claude/claude-model.ts'];

  it('is read only where a config is loaded, and by claudeModel\'s documented default', () => {
    const readers = Object.keys(graph).filter((file) => /\bprocess\.env\b/.test(readFileSync(join(SRC, file), 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '')));
    expect(readers.filter((file) => !READERS.some((allowed) => file.startsWith(allowed)))).toEqual([]);
  });
});
