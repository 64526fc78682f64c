/**
 * Refused requests in the log (issue 49, finding 3): one info line per kind
 * (configured source or "unknown", and reason) per window, saying how many
 * of its kind went unlogged since; every one at debug; every value cut.
 */
import { expect, it } from 'vitest';
import { createFakeClock } from '../../src/clock.js';
import { RuntimeEvents } from '../../src/events.js';
import { createLogger } from '../../src/observability/logger.js';
import { LOG_VALUE_MAX, logValue } from '../../src/observability/log-value.js';
import { observe } from '../../src/observability/observe.js';
import { REFUSAL_LOG_WINDOW_MS } from '../../src/observability/refusal-log.js';
import { jsonLog } from '../fixtures/json-log.js';

function observed(level: 'info' | 'debug') {
  const { lines, destination } = jsonLog();
  const events = new RuntimeEvents();
  const clock = createFakeClock(1_000_000);
  const stop = observe(events, { logger: createLogger({ level, destination }), now: clock.now });
  return { events, clock, lines, stop };
}

const refused = (source: string, known: boolean, reason = 'bad_signature') => ({ source, known, reason, message: `refused ${source}` });
const flush = () => new Promise((resolve) => setImmediate(resolve));

it('one info line per kind of refusal per window, with the count of those not logged since', async () => {
  const { events, clock, lines, stop } = observed('info');
  for (let i = 0; i < 5; i++) events.emit('webhook:refused', refused('github', true));
  for (let i = 0; i < 5; i++) events.emit('webhook:refused', refused(`made-up-${i}`, false, 'unknown_source'));
  events.emit('webhook:refused', refused('github', true, 'missing_signature'));
  await flush();
  expect(lines.map((l) => [l.level, l.source, l.reason, l.unlogged])).toEqual([
    [30, 'github', 'bad_signature', undefined],
    [30, 'made-up-0', 'unknown_source', undefined],
    [30, 'github', 'missing_signature', undefined],
  ]);
  clock.advance(REFUSAL_LOG_WINDOW_MS - 1);
  events.emit('webhook:refused', refused('github', true));
  await flush();
  expect(lines).toHaveLength(3);
  clock.advance(1);
  events.emit('webhook:refused', refused('github', true));
  events.emit('webhook:refused', refused('other', false, 'unknown_source'));
  await flush();
  expect(lines.slice(3).map((l) => [l.level, l.source, l.reason, l.unlogged, l.msg])).toEqual([
    [30, 'github', 'bad_signature', 5, 'webhook refused: refused github'],
    [30, 'other', 'unknown_source', 4, 'webhook refused: refused other'],
  ]);
  stop();
});

it('at debug every refusal is a line', async () => {
  const { events, lines, stop } = observed('debug');
  for (let i = 0; i < 3; i++) events.emit('webhook:refused', refused('github', true));
  await flush();
  expect(lines.map((l) => l.level)).toEqual([30, 20, 20]);
  stop();
});

it('a value from a request is cut to a bound and its control characters escaped', async () => {
  const { events, lines, stop } = observed('info');
  events.emit('webhook:refused', { source: 'y'.repeat(10_000), known: false, reason: 'unknown_source', message: `no source named "${'y'.repeat(10_000)}\u001b[31m"` });
  await flush();
  expect(lines[0]!.source).toBe(`${'y'.repeat(LOG_VALUE_MAX)}…(${10_000 - LOG_VALUE_MAX} more characters)`);
  expect(JSON.stringify(lines[0]).length).toBeLessThan(1_000);
  expect(logValue('a\u001b[2Jb\nc\u2028')).toBe('a\\u001b[2Jb\\u000ac\\u2028');
  stop();
});
