/**
 * Hono's `html` tag (hono/html) escapes every interpolated value unless it
 * is itself an `html` fragment: escaping by default, not by remembering (the
 * pages show text an agent wrote from untrusted input). This module only
 * names its fragment type and turns a finished page into a string.
 */
import type { html } from 'hono/html';

export { html } from 'hono/html';

/** A fragment made by `html`; a Promise only if a Promise was interpolated, which Vigil never does. */
export type Html = ReturnType<typeof html>;

export function toHtmlString(fragment: Html): string {
  if (fragment instanceof Promise) throw new TypeError('an html fragment was built from a Promise; pages are rendered synchronously');
  return fragment.toString();
}
