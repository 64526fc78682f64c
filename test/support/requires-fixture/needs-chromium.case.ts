// Run only by test/support/requires.test.ts, with CHROMIUM_PATH and CI set as each case needs.
import { expect, it } from 'vitest';
import { requires } from '../requires.js';

const ready = requires('chromium');

it('runs only where Chromium is', () => {
  expect(ready).toBe(true);
});
