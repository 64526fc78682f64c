/**
 * Turns the raw request target into (upstream name, path, query) and decides
 * whether the path is one the upstream allows.
 *
 * The check runs on the raw target as the agent sent it, never on a URL
 * object: WHATWG URL parsing resolves `..` and `%2e%2e` itself, which would
 * hide the trick instead of refusing it, and another parser (the upstream's)
 * may resolve it differently. So anything a parser could reinterpret is
 * refused outright: dot segments (plain or percent-encoded, in any case),
 * empty segments (`//`), backslashes, encoded slashes, control characters,
 * double encoding, `;` (a path parameter to Tomcat and Spring, which read
 * `..;` as `..`) and non-ASCII characters that Unicode normalisation (NFKC)
 * turns into `.`, `/`, `\`, `;` or `%` (a fullwidth dot). What remains has
 * exactly one reading, and the prefix check runs on that reading.
 */
import { ProxyError } from './proxy-error.js';

export interface ProxyTarget {
  /** The first segment: which upstream. */
  name: string;
  /** The rest, as sent (still percent-encoded), starting with "/": what is appended to the upstream URL. */
  path: string;
  /** The rest decoded once: what the prefix check compares. */
  decodedPath: string;
  /** The query string without its "?", as sent; '' when there is none. */
  query: string;
}

/** Splits `/<name>/<rest>?<query>`; throws a 403 ProxyError (`unsafe_path`) for a target that has no single safe reading. */
export function parseTarget(rawUrl: string): ProxyTarget {
  // Absolute-form targets (`GET http://evil.com/ HTTP/1.1`) would make this a forward proxy to anywhere.
  if (!rawUrl.startsWith('/')) throw badPath('the request target must be a path ("/<upstream>/<path>")');
  const queryAt = rawUrl.indexOf('?');
  const rawPath = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
  const segments = rawPath.slice(1).split('/');
  const name = segments[0] ?? '';
  const rest = segments.slice(1);
  const decoded: string[] = [];
  for (const [index, segment] of rest.entries()) {
    // A trailing slash ("/repos/") is one empty last segment; an empty one anywhere else is "//".
    if (segment === '' && index !== rest.length - 1) throw badPath('empty path segments ("//") are not allowed');
    decoded.push(decodeSegment(segment));
  }
  const path = rest.length === 0 ? '/' : `/${rest.join('/')}`;
  return { name, path, decodedPath: rest.length === 0 ? '/' : `/${decoded.join('/')}`, query };
}

/**
 * Characters that, once another parser has normalised Unicode (NFKC, as
 * some frameworks and file systems do), would be structure rather than
 * text: a fullwidth dot (U+FF0E) becomes ".", so "／..／" could climb out.
 */
const STRUCTURAL = /[./\\;%]/;

function decodeSegment(segment: string): string {
  if (segment.includes('\\')) throw badPath('backslashes are not allowed in the path');
  // Tomcat and Spring read "..;x" as ".." (the part after ";" is a path parameter), so a ";" anywhere is refused.
  if (segment.includes(';')) throw badPath('";" is not allowed in a path segment (some servers read what follows it as a parameter, "..;" as "..")');
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw badPath('the path has an invalid percent-encoding');
  }
  if (decoded === '.' || decoded === '..') throw badPath('"." and ".." segments (also percent-encoded) are not allowed');
  if (/[/\\]/.test(decoded)) throw badPath('encoded slashes and backslashes are not allowed in the path');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(decoded)) throw badPath('control characters are not allowed in the path');
  // Still encoded after one decoding ("%252e"): an upstream that decodes twice would see something else than was checked.
  if (/%[0-9a-f]{2}/i.test(decoded)) throw badPath('double percent-encoding is not allowed in the path');
  if (decoded.includes(';')) throw badPath('";" is not allowed in a path segment, encoded or not');
  for (const ch of decoded) {
    if (ch.charCodeAt(0) > 0x7f && STRUCTURAL.test(ch.normalize('NFKC'))) {
      throw badPath(`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in the path: normalised (NFKC) it reads as "${ch.normalize('NFKC')}"`);
    }
  }
  return decoded;
}

/**
 * Is `path` (decoded) under one of `prefixes`? A prefix ending in "/" covers
 * everything below it; any other prefix covers itself and its sub-paths, at a
 * segment boundary ("/user" allows "/user/repos", not "/users").
 */
export function pathAllowed(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => {
    if (prefix.endsWith('/')) return path.startsWith(prefix);
    return path === prefix || path.startsWith(`${prefix}/`);
  });
}

/** 403, not 400: these are attempts to reach a path the policy does not allow, and an agent should treat them as refusals. */
function badPath(message: string): ProxyError {
  return new ProxyError(403, 'unsafe_path', message);
}
