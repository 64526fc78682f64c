/**
 * The inbox page's model usage: today's and this month's, in the inbox's
 * time zone (stats().usage, engine/usage.ts), and a plain word when some
 * runs used a model with no known price, whose cost is then missing from
 * the totals (and from what a cost budget counts).
 */
import { html, type Html } from '../http/html.js';
import type { ModelUsageNow, UsageBucket } from '../store/contract.js';

function row(label: string, bucket: UsageBucket): Html {
  return html`<tr><th scope="row">${label} <span class="muted">${bucket.period}</span></th>
<td class="num">${bucket.runs}</td><td class="num">${bucket.inputTokens}</td><td class="num">${bucket.outputTokens}</td>
<td class="num">${bucket.cacheReadTokens}</td><td class="num">${bucket.cacheWriteTokens}</td><td class="num">${bucket.costUsd.toFixed(4)}</td></tr>`;
}

export function usageSection(usage: ModelUsageNow, timeZone: string): Html {
  const { today, month } = usage;
  return html`<section aria-labelledby="model-usage-h">
<h2 id="model-usage-h">Model usage</h2>
<div data-live id="model-usage">
<div class="scroll"><table>
<caption>Runs that used a model, in the inbox's days (${timeZone}); cost in US dollars</caption>
<thead><tr><th scope="col">Period</th><th scope="col">Runs</th><th scope="col">Input</th><th scope="col">Output</th><th scope="col">Cache read</th><th scope="col">Cache write</th><th scope="col">Cost</th></tr></thead>
<tbody>${row('Today', today)}${row('This month', month)}</tbody></table></div>
${month.unpricedRuns > 0
    ? html`<p class="alert" id="unpriced-usage">Unpriced usage: ${month.unpricedRuns} ${month.unpricedRuns === 1 ? 'run' : 'runs'} this month used a model with no known price; their tokens are counted, their cost is not. Set <code>prices</code> in the config.</p>`
    : ''}
</div>
</section>`;
}
