/**
 * `vigil effects <inbox>` as an operator uses it after a crash: a real
 * process on a real SQLite directory lists the unknown side-effect calls,
 * settles one (recorded as an operator action), and refuses one that is not
 * unknown with exit 1, changing nothing.
 */
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it('lists the unknown calls, --all every call; --settle KEY --as STATE settles an unknown one once, recorded; exit 1 otherwise', async () => {
  const dir = harness.tempDir('vigil-cli-');
  const flag = ['--store', `sqlite:${dir}`];
  const store = await openStore(`sqlite:${dir}`);
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 'chat', sourceId: 'm1' });
  const run = (await inbox.acquireAndClaim('worker-1'))!;
  await inbox.startEffect('worker-1', run.gen, { key: 'refund-key-42', tool: 'refund', input: { order: '42' } });
  await inbox.release('worker-1', run.gen); // the worker is gone without a finish: the call is unknown
  await store.close();

  let result = await harness.cli(['effects', 'alice', ...flag]);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/refund-key-42\s+unknown\s+refund\s+\{"order":"42"\}/);
  result = await harness.cli(['effects', 'alice', '--json', ...flag]);
  expect(JSON.parse(result.stdout)).toMatchObject([{ key: 'refund-key-42', state: 'started', unknown: true, tool: 'refund', input: { order: '42' } }]);

  result = await harness.cli(['effects', 'alice', '--settle', 'refund-key-42', ...flag]);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/--settle needs --as/);
  result = await harness.cli(['effects', 'alice', '--settle', 'refund-key-42', '--as', 'confirmed', ...flag]);
  expect([result.code, result.stdout]).toEqual([0, 'side effect refund-key-42 in alice is settled confirmed\n']);
  result = await harness.cli(['effects', 'alice', '--settle', 'refund-key-42', '--as', 'failed', ...flag]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/is confirmed, not unknown: nothing changed/);

  result = await harness.cli(['effects', 'alice', ...flag]);
  expect([result.code, result.stdout]).toEqual([0, 'no unknown side effects in alice\n']);
  result = await harness.cli(['effects', 'alice', '--all', ...flag]);
  expect(result.stdout).toMatch(/refund-key-42\s+confirmed\s+refund/);

  const reopened = await openStore(`sqlite:${dir}`);
  const actions = await reopened.view('alice').actions();
  await reopened.close();
  expect(actions.map((a) => [a.action, a.target, a.result])).toEqual([['settle effect confirmed', 'refund-key-42', 'settled confirmed']]);
});
