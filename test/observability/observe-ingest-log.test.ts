/**
 * The per-delivery log line: a stored event is logged at debug (one line per
 * webhook at info was a write to stdout on the event loop for every
 * delivery), a duplicate at info; the counters count both either way.
 */
import { expect, it } from 'vitest';
import { RuntimeEvents } from '../../src/events.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { observe } from '../../src/observability/observe.js';
import { jsonLog } from '../fixtures/json-log.js';

function observed(level: 'info' | 'debug') {
  const { lines, destination } = jsonLog();
  const events = new RuntimeEvents();
  const metrics = createMetrics();
  const stop = observe(events, { metrics, logger: createLogger({ level, destination }) });
  return { events, metrics, lines, stop };
}

const ingested = (stored: boolean) => ({ inboxId: 'alice', source: 'github', sourceId: stored ? 'd-1' : 'd-2', stored });

it('a stored event is a debug line, not an info line; the counter counts it', async () => {
  const info = observed('info');
  info.events.emit('event:ingested', ingested(true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(info.lines.filter((l) => l.msg === 'event stored')).toEqual([]);
  expect((await info.metrics.ingested.get()).values).toEqual([expect.objectContaining({ labels: { source: 'github' }, value: 1 })]);
  info.stop();

  const debug = observed('debug');
  debug.events.emit('event:ingested', ingested(true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(debug.lines.filter((l) => l.msg === 'event stored')).toEqual([expect.objectContaining({ level: 20, inboxId: 'alice', source: 'github', sourceId: 'd-1' })]);
  debug.stop();
});

it('a duplicate delivery stays an info line', async () => {
  const info = observed('info');
  info.events.emit('event:ingested', ingested(false));
  await new Promise((resolve) => setImmediate(resolve));
  expect(info.lines.filter((l) => l.msg === 'duplicate delivery: nothing stored')).toEqual([expect.objectContaining({ level: 30, sourceId: 'd-2' })]);
  expect((await info.metrics.duplicates.get()).values).toEqual([expect.objectContaining({ value: 1 })]);
  info.stop();
});
