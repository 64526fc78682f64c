/**
 * A value a request brought (a path segment, a header, an id), made fit for
 * the log: cut to LOG_VALUE_MAX characters, control characters shown as
 * escapes. Without the cut, anyone who can reach the port writes as much
 * log as they send (a refused webhook's 8 KB path segment was logged twice);
 * without the escapes, a pretty-printing terminal runs the sender's escape
 * codes. JSON lines are safe from forged lines either way (pino escapes
 * newlines), but not from size.
 */
export const LOG_VALUE_MAX = 120;

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

export function logValue(value: string, max = LOG_VALUE_MAX): string {
  const cut = value.length > max ? `${value.slice(0, max)}…(${value.length - max} more characters)` : value;
  return cut.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
