/** How the dashboard writes times and amounts: relative to the store's now, exact on hover. */
import { html, type Html } from '../http/html.js';
import { isReadableInstant } from '../store/index.js';

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/** "3m 20s": the two largest units, enough to act on. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${Math.round(abs)}ms`;
  const parts: string[] = [];
  let rest = abs;
  for (const [unit, size] of UNITS) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) {
      break;
    }
  }
  return parts.join(' ');
}

/** A time no rule could have stored (an older version's row, or one written by hand): said, not thrown on. */
function outOfRange(at: number): Html {
  return html`<span class="alert">out of range (${String(at)})</span>`;
}

/** A `<time>` saying "in 5m" or "2h ago", with the exact UTC time on hover. */
export function when(at: number | null, now: number): Html {
  if (at === null) return html`<span class="muted">—</span>`;
  if (!isReadableInstant(at)) return outOfRange(at);
  const iso = new Date(at).toISOString();
  const text = at === now ? 'now' : at > now ? `in ${duration(at - now)}` : `${duration(now - at)} ago`;
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
}

export function isoTime(at: number | null): Html {
  if (at === null) return html`<span class="muted">—</span>`;
  if (!isReadableInstant(at)) return outOfRange(at);
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

/** JSON for reading: indented, and never more than a screenful or two. */
export function prettyJson(value: unknown, maxChars = 20_000): string {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)` : text;
}
