import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openStore } from '../../src/index.js';
import type { StoreTarget } from './harness.js';
import { sqliteRawWrite } from './sqlite-raw-write.js';
import { runStoreConformance } from './suite.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sqlite: StoreTarget = {
  name: 'sqlite',
  capabilities: { databaseClock: false },
  async open(options) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-'));
    dirs.push(dir);
    return {
      store: await openStore(`sqlite:${dir}`, options),
      reopen: (more) => openStore(`sqlite:${dir}`, { ...options, ...more }),
      rawWrite: sqliteRawWrite(dir),
    };
  },
};

runStoreConformance(sqlite);
