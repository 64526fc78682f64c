/**
 * What an agent gets as `ctx.fetch`: fetch, but only through the proxy.
 * `proxyFetch('github/repos/x/y')` asks `<proxy>/github/repos/x/y`; the
 * proxy adds the credential. Absolute URLs are refused here, so agent code
 * cannot reach a host directly by mistake (the proxy's policy is the real
 * wall; this keeps honest code on the path that has one).
 *
 * Redirects are not followed: the proxy hands back only same-origin ones,
 * whose Location names the upstream itself, and following it would leave
 * the proxy (and arrive without the credential).
 */
export type ProxyFetch = (path: string, init?: RequestInit) => Promise<Response>;

export function createProxyFetch(baseUrl: string, fetchImpl: typeof fetch = fetch): ProxyFetch {
  const base = new URL(baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`createProxyFetch: ${baseUrl} is not an http(s) URL`);
  const root = base.href.replace(/\/+$/, '');
  return (path, init) => {
    if (typeof path !== 'string') return Promise.reject(new TypeError('ctx.fetch takes a path through the credential proxy, like "github/repos/x/y"'));
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
      return Promise.reject(new TypeError(`ctx.fetch goes through the credential proxy only: use "<upstream>/<path>", not ${JSON.stringify(path.slice(0, 100))}`));
    }
    return fetchImpl(`${root}/${path.replace(/^\/+/, '')}`, { ...init, redirect: 'manual' });
  };
}
