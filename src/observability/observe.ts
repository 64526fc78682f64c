/**
 * Logs and metrics, from the one event stream (src/events.ts): the engine
 * and the runtime only emit what happened; this turns each event into
 * Prometheus samples and pino lines. One subscriber, so a count and its log
 * line can never disagree, and a run is never slowed by a read made just
 * for a gauge: every figure comes with its event.
 */
import { systemClock, type Clock } from '../clock.js';
import type { RuntimeEvents } from '../events.js';
import type { OutboxFailureKind } from '../store/contract.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { refusalLog } from './refusal-log.js';
import { ModelUsageMetrics } from './model-usage-metrics.js';

export interface Observers {
  metrics?: Metrics;
  logger?: Logger;
  /** For the refusal log's window (default the system clock). */
  now?: Clock;
}

/** The log line of each kind of message a channel did not take (outbox:failed). */
const FAILED_MESSAGES: Record<OutboxFailureKind, string> = {
  rejected: 'messages rejected by the channel for good; kept for a redrive',
  undeliverable: 'messages undeliverable: no address for this channel; kept for a redrive',
  uncertain: 'messages whose send may or may not have landed (at most once: not sent again on its own); kept for an operator to resend or drop',
};

/** Subscribes; returns the function that stops. */
export function observe(events: RuntimeEvents, { metrics, logger, now = systemClock }: Observers): () => void {
  /** Held messages per inbox, as each inbox's last dispatch left them: the gauge is their sum. */
  const held = new Map<string, number>();
  const logRefusal = refusalLog(logger, now);
  const quotaLines = new QuotaLines();
  const modelUsage = metrics === undefined ? undefined : new ModelUsageMetrics(metrics);
  const off = [
    events.on('event:ingested', (e) => {
      (e.stored ? metrics?.ingested : metrics?.duplicates)?.inc({ source: e.source });
      // A stored event is the service's everyday work, one per delivery: at info it cost a line (and a write to
      // stdout on the event loop) per webhook. The counter counts them; the line is there at debug. A duplicate
      // (a provider retrying, a replay) stays at info: it is the exception worth seeing.
      if (e.stored) logger?.debug(e, 'event stored');
      else logger?.info(e, 'duplicate delivery: nothing stored');
    }),
    events.on('ingest:refused', (e) => {
      metrics?.quotaRefused.inc({ source: e.source, reason: e.reason });
      // A sender over its quota is refused again at every retry: one line per inbox and minute, with the count since.
      const refused = quotaLines.note(e.inboxId, e.reason);
      if (refused > 0) logger?.info({ inboxId: e.inboxId, reason: e.reason, refused }, 'inbox over its quota: deliveries refused with 429');
    }),
    events.on('webhook:refused', (e) => {
      // Unknown source names stay out of the label: a path segment anyone can vary must not grow the metrics.
      metrics?.rejectedSignatures.inc({ source: e.known ? e.source : '(unknown)', reason: e.reason });
      // Anyone can send these, as many as they like: sampled, and bounded (refusal-log.ts).
      logRefusal(e);
    }),
    events.on('run:started', (e) => logger?.info({ inboxId: e.inboxId, gen: e.gen, events: e.eventIds.length }, 'run started')),
    events.on('run:finished', (e) => {
      metrics?.runs.inc({ outcome: e.outcome });
      metrics?.runDuration.observe(e.durationMs / 1000);
      if (e.usage !== undefined) modelUsage?.count(e.inboxId, e.usage);
      for (const decision of e.decisions ?? []) logger?.info({ inboxId: e.inboxId, gen: e.gen, ...decision }, 'tool call %s: %s', decision.tool, decision.decision);
      const line = { inboxId: e.inboxId, gen: e.gen, events: e.eventIds.length, outcome: e.outcome, durationMs: Math.round(e.durationMs) };
      if (e.outcome === 'messages' || e.outcome === 'nothing') logger?.info(line, 'run finished');
      else logger?.warn({ ...line, error: e.error }, 'run did not complete');
    }),
    events.on('run:screened', (e) => logger?.warn(e, 'events screened out (dead, redrivable)')),
    events.on('lease:acquired', (e) => {
      if (!e.takeover) return;
      metrics?.leaseTakeovers.inc();
      logger?.warn(e, 'took over a lease whose holder stopped: its events run again');
    }),
    events.on('lease:lost', (e) => {
      metrics?.leaseLost.inc();
      logger?.warn(e, 'lease lost: run aborted, its finish will be refused');
    }),
    // The one line that says an event will not run again by itself: it waits for an operator's redrive.
    events.on('events:dead', (e) => {
      metrics?.deadEvents.inc(e.events.length);
      for (const dead of e.events) logger?.warn({ inboxId: e.inboxId, error: e.error, ...dead }, 'event dead: it runs again only when redriven');
    }),
    events.on('scheduler:fired', (e) => logger?.info(e, 'timers fired')),
    events.on('approval:answered', (e) => logger?.info(e, 'approval answered')),
    events.on('approval:reminded', (e) => logger?.info(e, e.sent ? 'approval reminder queued' : 'approval reminder not sent: answered or expired')),
    events.on('effect:settled', (e) => logger?.info(e, 'side effect settled')),
    events.on('outbox:expedited', (e) => logger?.info(e, 'held messages expedited')),
    events.on('outbox:dispatched', (e) => {
      if (e.held === 0) held.delete(e.inboxId);
      else held.set(e.inboxId, e.held);
      let total = 0;
      for (const n of held.values()) total += n;
      metrics?.outboxHeld.set(total);
    }),
    events.on('outbox:sent', (e) => logger?.info({ inboxId: e.inboxId, count: e.count }, 'outbox sent')),
    events.on('channel:delivered', (e) => metrics?.outboxSent.inc({ channel: e.channel }, e.count)),
    events.on('channel:failed', (e) => {
      metrics?.channelFailures.inc({ channel: e.channel });
      logger?.warn(e, 'channel failed; the messages stay held');
    }),
    events.on('outbox:failed', (e) => {
      metrics?.outboxFailed.inc({ channel: e.channel, kind: e.kind }, e.messageIds.length);
      logger?.warn(e, FAILED_MESSAGES[e.kind]);
    }),
    events.on('operator:sent', (e) => {
      if (e.status === 'delivered') logger?.info(e, 'message for the operator sent');
      else logger?.warn(e, 'a message for the operator was not taken by its channel');
    }),
    events.on('store:pruned', (e) => {
      for (const kind of ['events', 'messages', 'approvals', 'actions', 'effects', 'usage'] as const) if (e[kind] > 0) metrics?.pruned.inc({ kind }, e[kind]);
      logger?.debug(e, 'pruned rows past their retention');
    }),
    events.on('inbox:deleted', (e) => logger?.info(e, 'inbox deleted, with every row and key it held')),
    events.on('inbox:paused-for-spend', (e) => logger?.warn({ ...e, until: new Date(e.until).toISOString() }, 'inbox paused for spend: its budget is spent; its events wait')),
    events.on('inbox:write-refused', (e) => logger?.warn(e, `the inbox was deleted meanwhile: its ${e.write} is refused and recreates nothing`)),
    events.on('inbox:imported', (e) => logger?.info(e, 'inbox imported')),
    events.on('store:health', (e) => {
      if (e.status === 'ok') logger?.warn(e, 'the store works again: /healthz says ok');
      else logger?.error(e, 'the store takes no writes: /healthz says degraded (%s)', e.reason);
    }),
    events.on('inbox:writes-failing', (e) => logger?.error(e, "writes to this inbox fail; the store takes the other inboxes' writes, so /healthz stays ok")),
    events.on('inbox:writes-recovered', (e) => logger?.warn(e, 'writes to this inbox work again')),
    events.on('outbox:lost', (e) => {
      metrics?.channelFailures.inc({ channel: e.channel });
      metrics?.outboxLost.inc({ channel: e.channel }, e.count);
      logger?.error(e, 'channel failed; at-most-once delivery: these messages are not sent again');
    }),
  ];
  return () => {
    for (const stop of off) stop();
  };
}

/** How often one inbox's quota refusals make a log line. */
const QUOTA_LINE_EVERY_MS = 60_000;
/** Inboxes remembered at once: beyond it the oldest are forgotten (a line again, at worst). */
const QUOTA_LINES_KEPT = 1_000;

/** One log line per inbox per minute for quota refusals: the metric counts each, the log says that it goes on. */
class QuotaLines {
  private readonly last = new Map<string, { at: number; reason: string; since: number }>();

  /** How many refusals the line for this one reports, or 0 when no line is due (the same reason, within the minute). */
  note(inboxId: string, reason: string): number {
    const now = performance.now();
    const seen = this.last.get(inboxId);
    if (seen !== undefined && seen.reason === reason && now - seen.at < QUOTA_LINE_EVERY_MS) {
      seen.since += 1;
      return 0;
    }
    const refused = (seen?.since ?? 0) + 1;
    this.last.delete(inboxId);
    if (this.last.size >= QUOTA_LINES_KEPT) this.last.delete(this.last.keys().next().value!);
    this.last.set(inboxId, { at: now, reason, since: 0 });
    return refused;
  }
}
