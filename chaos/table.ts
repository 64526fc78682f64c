/** The run's figures and invariants as plain-text tables (and a markdown row for RELIABILITY.md). */
import type { ChaosReport } from './harness.js';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

export function formatReport(report: ChaosReport): string {
  const { config, check, kills, fleet, feeder } = report;
  const figures: [string, string][] = [
    ['store', `${config.store}${config.atMostOnce ? ' (atMostOnce)' : ''}`],
    ['seed', String(config.seed)],
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s (chaos window ${config.windowMs / 1000} s, drain ${(report.drainMs / 1000).toFixed(1)} s)`],
    ['events planned', `${config.events} in ${config.inboxes} inboxes (${config.poison} poison, ${config.throwing} throwing, ${config.flaky} flaky, ${config.slow} slow, ${config.asks} asks)`],
    ['deliveries', `${feeder.deliveries} (${feeder.refused} refused as duplicates)`],
    ['rows stored', `${check.rows} (${check.done} done, ${check.dead} dead; timer and approval events included)`],
    ['collateral deaths', `${check.collateral.length}${check.collateral.length === 0 ? '' : `: ${check.collateral.slice(0, 3).join('; ')}`}`],
    ['workers', `${config.workers} at a time × ${config.concurrency} inboxes; ${fleet.started} processes started, median start ${median(fleet.startMs)} s`],
    ['kills', `${kills.total} of ${config.kills} planned (${kills.skipped} dropped: no worker ready): ${Object.entries(kills.byPoint).map(([p, n]) => `${p} ${n}`).join(', ')}`],
    ['poison crashes', String(kills.poison)],
    ['lease grants', `${check.leases.grants} (${check.leases.leases} leases)`],
    ['messages', `${check.messages} queued, ${check.deliveries} deliveries (${check.duplicateDeliveries} repeated, ${check.lostMessages} lost)`],
  ];
  const invariants = check.invariants.map((inv) => [inv.violations.length === 0 ? 'held' : 'BROKEN', inv.name, String(inv.checked), inv.violations.join('; ')]);
  return [
    table(['figure', 'value'], figures),
    '',
    table(['', 'invariant', 'checked', 'violations'], invariants),
    '',
    report.passed ? `chaos: every invariant held (${config.store})` : `chaos: ${check.invariants.filter((i) => i.violations.length > 0).length} invariants BROKEN; files kept in ${report.dir}`,
  ].join('\n');
}

function median(values: readonly number[]): string {
  if (values.length === 0) return '-';
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(1);
}
