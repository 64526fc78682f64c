// A test that needs nothing, so the fixture's run always runs one (the summary reporter fails a run that ran none).
import { expect, it } from 'vitest';

it('needs nothing', () => {
  expect(1 + 1).toBe(2);
});
