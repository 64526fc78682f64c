/**
 * The fetch an HTTP MCP transport gets: requests to the server's URL
 * through the credential proxy, nothing else. The SDK may follow a
 * same-origin redirect or open an event stream; this keeps every request on
 * the proxy's origin, so none leaves it for a host the proxy's policy does
 * not cover (or arrives there without the credential).
 */
export function proxyOnlyFetch(serverUrl: URL): typeof fetch {
  const origin = serverUrl.origin;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return Promise.reject(new TypeError(`an MCP request to ${url.origin} was refused: MCP servers are reached through the credential proxy (${origin}) only`));
    return fetch(input, { ...init, redirect: 'manual' });
  };
}
