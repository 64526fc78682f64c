/** examples/testing-kit.ts: the reference scenarios on the testing kit print the reference output. */
import { expect, it } from 'vitest';
import { runKitScenarios } from '../../examples/testing-kit.js';
import { EXPECTED } from '../examples/expected-output.js';

it('prints the reference output for all eight scenarios, written with vigil-agents/testing (SQLite)', async () => {
  expect(await runKitScenarios()).toEqual(EXPECTED);
});
