/**
 * Prometheus metrics (prom-client), one registry per service so tests and
 * several services in one process never share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'vigil_' }); // prom-client's names start with process_/nodejs_ already
  const registers = [registry];
  return {
    registry,
    ingested: new Counter({ name: 'vigil_events_ingested_total', help: 'Events stored, by source', labelNames: ['source'], registers }),
    duplicates: new Counter({ name: 'vigil_events_duplicate_total', help: 'Deliveries refused as duplicates, by source', labelNames: ['source'], registers }),
    quotaRefused: new Counter({
      name: 'vigil_ingest_refused_total',
      help: "Events from outside refused by their inbox's quota (429), by source and reason (inbox_full, rate_limited)",
      labelNames: ['source', 'reason'],
      registers,
    }),
    rejectedSignatures: new Counter({
      name: 'vigil_webhook_rejected_total',
      help: 'Webhook deliveries refused before storing, by source and reason',
      labelNames: ['source', 'reason'],
      registers,
    }),
    runs: new Counter({ name: 'vigil_runs_total', help: 'Agent runs, by outcome', labelNames: ['outcome'], registers }),
    runDuration: new Histogram({
      name: 'vigil_run_duration_seconds',
      help: 'Agent run duration',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers,
    }),
    leaseTakeovers: new Counter({ name: 'vigil_lease_takeovers_total', help: 'Leases taken over after they expired', registers }),
    leaseLost: new Counter({ name: 'vigil_lease_lost_total', help: 'Runs aborted because their lease was lost', registers }),
    deadEvents: new Counter({ name: 'vigil_events_dead_total', help: 'Events parked as dead after too many attempts', registers }),
    outboxSent: new Counter({ name: 'vigil_outbox_sent_total', help: 'Outbox messages delivered, by channel', labelNames: ['channel'], registers }),
    outboxLost: new Counter({
      name: 'vigil_outbox_lost_total',
      help: 'Outbox messages a channel failed to take under at-most-once delivery (never sent to it again), by channel',
      labelNames: ['channel'],
      registers,
    }),
    outboxHeld: new Gauge({ name: 'vigil_outbox_held', help: 'Outbox messages waiting, at the last dispatch pass', registers }),
    outboxFailed: new Counter({
      name: 'vigil_outbox_failed_total',
      help: 'Outbox messages a channel did not take for good (kept, redrivable), by channel and kind (rejected, undeliverable: no contact)',
      labelNames: ['channel', 'kind'],
      registers,
    }),
    pruned: new Counter({
      name: 'vigil_pruned_total',
      help: 'Rows removed past their retention, by kind (events, messages, approvals, actions, effects, usage); pruned events keep their keys',
      labelNames: ['kind'],
      registers,
    }),
    channelFailures: new Counter({ name: 'vigil_channel_failures_total', help: 'Failed channel sends, by channel', labelNames: ['channel'], registers }),
    // By inbox, bounded: model-usage-metrics.ts.
    modelTokens: new Counter({
      name: 'vigil_model_tokens_total',
      help: "Tokens the agents' model calls used, by inbox (the first 100 seen; the rest as \"(other)\") and kind (input, output, cache_read, cache_write)",
      labelNames: ['inbox', 'kind'],
      registers,
    }),
    modelCost: new Counter({
      name: 'vigil_model_cost_usd_total',
      help: "What the agents' model calls cost in US dollars where a price was known, by inbox (the first 100 seen; the rest as \"(other)\")",
      labelNames: ['inbox'],
      registers,
    }),
  };
}
