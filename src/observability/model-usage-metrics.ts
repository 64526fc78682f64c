/**
 * `vigil_model_tokens_total` and `vigil_model_cost_usd_total` by inbox,
 * from each run's usage on `run:finished` (the priced total, an error's
 * and a refused run's too: those tokens were paid for, though a refused
 * run's are not recorded in the store). An inbox id is a label for the
 * first MAX_INBOX_LABELS inboxes this process counts; the rest share
 * `inbox="(other)"`, so ten thousand users cannot make ten thousand series.
 */
import type { Usage } from '../store/contract.js';
import type { Metrics } from './metrics.js';

/** Inboxes with a label of their own, per process. */
export const MAX_INBOX_LABELS = 100;
export const OTHER_INBOXES = '(other)';

const KINDS = [
  ['input', 'inputTokens'],
  ['output', 'outputTokens'],
  ['cache_read', 'cacheReadTokens'],
  ['cache_write', 'cacheWriteTokens'],
] as const;

export class ModelUsageMetrics {
  private readonly labelled = new Set<string>();

  constructor(private readonly metrics: Metrics) {}

  count(inboxId: string, usage: Usage): void {
    const inbox = this.label(inboxId);
    for (const [kind, field] of KINDS) {
      const tokens = usage[field] ?? 0;
      if (tokens > 0) this.metrics.modelTokens.inc({ inbox, kind }, tokens);
    }
    if (usage.costUsd !== undefined && usage.costUsd > 0) this.metrics.modelCost.inc({ inbox }, usage.costUsd);
  }

  private label(inboxId: string): string {
    if (this.labelled.has(inboxId)) return inboxId;
    if (this.labelled.size >= MAX_INBOX_LABELS) return OTHER_INBOXES;
    this.labelled.add(inboxId);
    return inboxId;
  }
}
