/**
 * The article's eight scenarios through the public API must print exactly
 * what its reference script prints. The expected lines live in
 * expected-output.ts (a user's clone has no ../shared to read them from).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runScenarios } from '../../examples/reference-scenarios.js';
import { openStore } from '../../src/index.js';
import { EXPECTED } from './expected-output.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('prints the reference output for all eight scenarios on SQLite', async () => {
  const lines = await runScenarios((clock) => openStore(`sqlite:${dir}`, { clock }));
  expect(lines).toEqual(EXPECTED);
});
