/**
 * A tagged template that escapes every interpolated value unless it is
 * itself an `html` fragment. Escaping by default, not by remembering: the
 * approval pages show action text an agent wrote from untrusted input.
 */
const FRAGMENT = Symbol('html fragment');

export interface Html {
  readonly [FRAGMENT]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] as string);
}

function render(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && FRAGMENT in value) return (value as Html)[FRAGMENT];
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return { [FRAGMENT]: out };
}

export function toHtmlString(fragment: Html): string {
  return fragment[FRAGMENT];
}
