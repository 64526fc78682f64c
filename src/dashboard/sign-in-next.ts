/**
 * Where the sign-in form sends the browser afterwards (`next`): a path on
 * this server, or the dashboard's root.
 *
 * Checking the text was not enough, twice. A browser drops tabs and
 * newlines and reads `\` as `/`, so `/\t/evil.example` went off the server
 * (and a newline made the Location header itself fail, a 500). Parsing
 * `next` as a URL against this server fixed that, but kept the parsed path
 * as it came out: `/.//evil.example`, `/%2e//evil.example` and
 * `/x/..//evil.example` all parse, on this origin, to the path
 * `//evil.example`, and a browser reads `Location: //evil.example` as
 * another host. So the result is judged as the Location it becomes: it must
 * be a path that does not start with `//` or `/\`, and that a browser,
 * resolving it against this server, reads as this server and this same path.
 */

/** Stands for this server while `next` is parsed; never shown. Any origin would do: only "same or not" is asked. */
const HERE = 'http://vigil.invalid';

/** Where the dashboard starts: the answer for anything that is not a safe path here. */
export const DASHBOARD_ROOT = '/';

/**
 * `next` as the WHATWG URL parser (the browser's) reads it against this
 * server, re-encoded as path, query and fragment; the root when that is not
 * a path on this server.
 */
export function signInNext(next: string | undefined): string {
  // Only what already looks like a path: `inbox`, `\/evil`, ` /x` or an absolute URL are not where a link of ours points.
  if (next === undefined || !next.startsWith('/')) return DASHBOARD_ROOT;
  const resolved = sameOriginPath(next);
  if (resolved === null || !isPlainPath(resolved)) return DASHBOARD_ROOT;
  // The Location header is resolved by the browser once more: it must land on this server, at the same path.
  return sameOriginPath(resolved) === resolved ? resolved : DASHBOARD_ROOT;
}

/** Path, query and fragment of `target` resolved against this server, or null when it leaves it (or does not parse). */
function sameOriginPath(target: string): string | null {
  let url: URL;
  try {
    url = new URL(target, HERE);
  } catch {
    return null;
  }
  return url.origin === HERE ? url.pathname + url.search + url.hash : null;
}

/** A path-absolute reference: `/` then anything but a second slash or a backslash, which would name a host. */
function isPlainPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}
