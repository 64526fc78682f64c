/**
 * The inbox page's small chart: events received and finished per hour over
 * the last day, as inline SVG drawn on the server. No script and no inline
 * style (the CSP forbids both): colours come from classes in dashboard.css.
 */
import { html, type Html } from '../http/html.js';
import type { ActivityBucket } from '../store/contract.js';

const WIDTH = 480;
const HEIGHT = 96;

export function activityChart(buckets: readonly ActivityBucket[], bucketMs: number): Html {
  const received = buckets.reduce((sum, b) => sum + b.received, 0);
  const finished = buckets.reduce((sum, b) => sum + b.finished, 0);
  const runs = buckets.reduce((sum, b) => sum + b.runs, 0);
  const hours = Math.round((buckets.length * bucketMs) / 3_600_000);
  const summary = `Last ${hours} hours: ${received} events received, ${finished} finished in ${runs} runs.`;
  if (buckets.length === 0) return html`<p>${summary}</p>`;
  const max = Math.max(1, ...buckets.map((b) => Math.max(b.received, b.finished)));
  const slot = WIDTH / buckets.length;
  const bar = Math.max(1, slot / 2 - 1);
  const height = (n: number): number => (n === 0 ? 0 : Math.max(1, Math.round((n / max) * (HEIGHT - 4))));
  const bars = buckets.map((b, i) => {
    const x = i * slot;
    const r = height(b.received);
    const f = height(b.finished);
    const label = `${new Date(b.start).toISOString().slice(11, 16)}Z: ${b.received} received, ${b.finished} finished, ${b.runs} runs`;
    return html`<g><title>${label}</title><rect class="received" x="${x.toFixed(1)}" y="${HEIGHT - r}" width="${bar.toFixed(1)}" height="${r}"></rect><rect class="finished" x="${(x + bar).toFixed(1)}" y="${HEIGHT - f}" width="${bar.toFixed(1)}" height="${f}"></rect></g>`;
  });
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${summary}" preserveAspectRatio="none">${bars}</svg>
<figcaption>${summary} <span class="legend received">received</span> <span class="legend finished">finished</span> (peak ${max} per hour)</figcaption>
</figure>`;
}
