/**
 * The inbox page's unknown side effects (contract/effects.ts): the calls of
 * tools declared `sideEffect` that a crash or a lost lease left `started`,
 * which nobody knows happened and the tool loop never runs again on its own.
 * Shown only when there are some; an operator settles one after checking the
 * API's own record under its key (`vigil effects <inbox> --settle KEY --as …`).
 */
import { html, type Html } from '../http/html.js';
import type { EffectRow } from '../store/contract.js';
import { when } from './format.js';

export function unknownEffectsSection(id: string, effects: readonly EffectRow[] | undefined, now: number): Html {
  if (effects === undefined || effects.length === 0) return html``;
  return html`<section aria-labelledby="effects-h">
<h2 id="effects-h" class="alert">Unknown side effects</h2>
<p>A crash interrupted ${effects.length === 1 ? 'this call' : 'these calls'}: nobody knows whether ${effects.length === 1 ? 'it' : 'they'} happened, and ${effects.length === 1 ? 'it is' : 'they are'} not run again until settled. Check the API under the key, then <code>vigil effects ${id} --settle KEY --as confirmed|failed</code>.</p>
<div class="scroll"><table>
<thead><tr><th>Key</th><th>Tool</th><th>Input</th><th>Started</th></tr></thead>
<tbody>${effects.map(
    (effect) => html`<tr><td class="key">${effect.key}</td><td>${effect.tool}</td><td><pre>${JSON.stringify(effect.input)}</pre></td><td>${effect.startedAt === null ? '—' : when(effect.startedAt, now)}</td></tr>`,
  )}</tbody>
</table></div>
</section>`;
}
