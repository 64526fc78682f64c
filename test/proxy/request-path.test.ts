/** The path policy on its own: one safe reading of the target, or a refusal; prefixes at segment boundaries. */
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/proxy/index.js';
import { parseTarget, pathAllowed } from '../../src/proxy/request-path.js';

describe('parseTarget', () => {
  it('splits name, path (as sent), decoded path and query', () => {
    expect(parseTarget('/github/repos/a%20b/c?x=1&y=%2F')).toEqual({ name: 'github', path: '/repos/a%20b/c', decodedPath: '/repos/a b/c', query: 'x=1&y=%2F' });
    expect(parseTarget('/github')).toEqual({ name: 'github', path: '/', decodedPath: '/', query: '' });
    expect(parseTarget('/github/repos/')).toMatchObject({ path: '/repos/', decodedPath: '/repos/' });
    // Dots inside a segment are ordinary characters.
    expect(parseTarget('/github/repos/a..b/.well-known')).toMatchObject({ decodedPath: '/repos/a..b/.well-known' });
  });

  it.each([
    '/g/..', '/g/a/%2e', '/g/a/%2E%2e/b', '/g/a//b', '/g/a\\b', '/g/a%5Cb', '/g/a%2Fb', '/g/a%0ab', '/g/a%7f', '/g/%25%32%65', '/g/%E0%A4%A', 'http://evil/x',
    // ";" in a segment: Tomcat and Spring read "..;x" as "..".
    '/g/repos/..;/admin', '/g/repos/x;jsessionid=1', '/g/repos/%3B', '/g/repos/..%3b/admin',
    // Fullwidth and other compatibility forms of ".", "/", "\\", ";" and "%" (NFKC).
    '/g/repos/%EF%BC%8E%EF%BC%8E/admin', '/g/repos/%EF%BC%8F', '/g/repos/%E2%80%A4', '/g/repos/%E2%80%A5', '/g/repos/%EF%B9%92', '/g/repos/%EF%BC%BC', '/g/repos/%EF%BC%9B', '/g/repos/%EF%BC%85',
  ])(
    '%s is refused as unsafe_path (403)',
    (target) => {
      let caught: unknown;
      try {
        parseTarget(target);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ProxyError);
      expect([(caught as ProxyError).status, (caught as ProxyError).code]).toEqual([403, 'unsafe_path']);
    },
  );
});

describe('non-ASCII that stays text', () => {
  it('is allowed: letters, accents and emoji normalise to no structure', () => {
    expect(parseTarget('/g/repos/%C3%A4%E2%82%AC%F0%9F%98%80/%E3%83%86').decodedPath).toBe('/repos/ä€😀/テ');
  });
});

describe('pathAllowed', () => {
  it('a prefix ending in "/" covers what is below it; any other covers itself and its sub-paths', () => {
    const prefixes = ['/repos/', '/user'];
    expect(['/repos/x', '/repos/', '/user', '/user/', '/user/repos'].filter((p) => pathAllowed(p, prefixes))).toHaveLength(5);
    expect(['/repos', '/reposx', '/users', '/userx', '/', '/admin'].filter((p) => pathAllowed(p, prefixes))).toEqual([]);
    expect(pathAllowed('/anything/at/all', ['/'])).toBe(true);
  });
});
