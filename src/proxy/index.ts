/**
 * The credential proxy (`vigil proxy --config FILE`): agents use credentials
 * they never see. See docs/design/credential-proxy.md for the threat model.
 */
export { loadProxyConfig, parseProxyConfig, proxyConfigSchema, resolveProxyConfig } from './config.js';
export type { ProxyConfig, ProxyConfigInput, ResolvedProxyConfig, Upstream } from './config.js';
export { startProxyServer } from './server.js';
export type { ProxyServer, ProxyServerOptions } from './server.js';
export { ProxyError } from './proxy-error.js';
