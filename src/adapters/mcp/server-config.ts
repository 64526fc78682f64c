/**
 * The servers `mcpTools` connects, checked before anything starts: a bad
 * name, a server that is neither stdio nor HTTP, or an HTTP server named by
 * an absolute URL is a VigilError at startup, not a surprise on a bad night.
 *
 * An HTTP server is reached through the credential proxy only, like
 * `ctx.fetch`: its `url` is a path through the proxy (`github-mcp/mcp`, the
 * proxy's upstream `github-mcp` adding the credential), joined to
 * `proxyUrl`. An absolute URL is refused, so no MCP token ever sits in the
 * agent's process.
 */
import { VigilError } from '../../errors.js';
import { BOUNDS } from '../../store/index.js';

export interface StdioServer {
  /** The program to start, e.g. `node` or an absolute path. */
  command: string;
  args?: readonly string[];
  /** The child's whole environment besides a minimal PATH (child-env.ts): nothing of the service's is passed on. */
  env?: Readonly<Record<string, string>>;
  /** Directory the child starts in. Default: the service's. */
  cwd?: string;
  /** Let the server's tool annotations pick the default permissions (default-permissions.ts). Default false. */
  trusted?: boolean;
}

export interface HttpServer {
  /** A path through the credential proxy, e.g. `github-mcp/mcp` (the proxy's upstream, then the server's path). */
  url: string;
  trusted?: boolean;
}

export type McpServerConfig = StdioServer | HttpServer;

export interface McpToolsOptions {
  /** Server name → how to reach it. Tools are named `<server>.<tool>`. */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** The credential proxy's base URL (vigil.json's `proxy.url`); needed when a server is reached over HTTP. */
  proxyUrl?: string;
  /** How long an approval asked by a trusted server's default `ask` waits for an answer. Default 24 hours. */
  askExpiresInMs?: number;
}

export type ResolvedServer =
  | { name: string; kind: 'stdio'; trusted: boolean; command: string; args: string[]; env: Record<string, string>; cwd: string | undefined }
  | { name: string; kind: 'http'; trusted: boolean; url: URL };

export const DEFAULT_ASK_EXPIRES_IN_MS = 24 * 60 * 60 * 1000;

const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function resolveServers(options: McpToolsOptions): { servers: ResolvedServer[]; askExpiresInMs: number } {
  if (typeof options !== 'object' || options === null) throw invalid('mcpTools takes { servers, proxyUrl?, askExpiresInMs? }');
  const { servers, proxyUrl, askExpiresInMs = DEFAULT_ASK_EXPIRES_IN_MS } = options;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers) || Object.keys(servers).length === 0) {
    throw invalid('mcpTools: servers must be an object of server name → { command, args?, env? } or { url }, with at least one server');
  }
  if (!Number.isSafeInteger(askExpiresInMs) || askExpiresInMs <= 0 || askExpiresInMs > BOUNDS.maxDurationMs) {
    throw invalid(`mcpTools: askExpiresInMs must be an integer from 1 to ${BOUNDS.maxDurationMs}`);
  }
  const resolved = Object.entries(servers).map(([name, server]) => resolveServer(name, server, proxyUrl));
  return { servers: resolved, askExpiresInMs };
}

function resolveServer(name: string, server: McpServerConfig, proxyUrl: string | undefined): ResolvedServer {
  if (!SERVER_NAME.test(name)) throw invalid(`mcpTools: server name ${JSON.stringify(name)}: use 1 to 64 letters, digits, "_" and "-" (tools are named <server>.<tool>)`);
  const where = `mcpTools: servers.${name}`;
  if (typeof server !== 'object' || server === null) throw invalid(`${where} must be { command, args?, env? } or { url }`);
  const trusted = server.trusted ?? false;
  if (typeof trusted !== 'boolean') throw invalid(`${where}.trusted must be true or false`);
  const hasCommand = 'command' in server && server.command !== undefined;
  const hasUrl = 'url' in server && server.url !== undefined;
  if (hasCommand === hasUrl) throw invalid(`${where} must have either a command (stdio) or a url (Streamable HTTP), not ${hasCommand ? 'both' : 'neither'}`);
  if (hasUrl) return { name, kind: 'http', trusted, url: throughProxy(where, (server as HttpServer).url, proxyUrl) };

  const { command, args = [], env = {}, cwd } = server as StdioServer;
  if (typeof command !== 'string' || command === '') throw invalid(`${where}.command must be a non-empty string`);
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) throw invalid(`${where}.args must be an array of strings`);
  if (typeof env !== 'object' || env === null || Array.isArray(env) || !Object.values(env).every((value) => typeof value === 'string')) {
    throw invalid(`${where}.env must be an object of strings`);
  }
  if (cwd !== undefined && typeof cwd !== 'string') throw invalid(`${where}.cwd must be a string`);
  return { name, kind: 'stdio', trusted, command, args: [...args], env: { ...env }, cwd };
}

/** `github-mcp/mcp` + the proxy's base URL; an absolute URL would bypass the proxy, so it is refused. */
function throughProxy(where: string, path: unknown, proxyUrl: string | undefined): URL {
  if (typeof path !== 'string' || path === '') throw invalid(`${where}.url must be a path through the credential proxy, like "github-mcp/mcp"`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw invalid(`${where}.url is ${JSON.stringify(path.slice(0, 100))}: MCP servers over HTTP are reached through the credential proxy only; give a path such as "github-mcp/mcp" (the proxy's upstream, then the server's path) and set proxyUrl`);
  }
  if (proxyUrl === undefined) throw invalid(`${where} is reached over HTTP through the credential proxy: give mcpTools a proxyUrl (vigil.json's proxy.url)`);
  let base: URL;
  try {
    base = new URL(proxyUrl);
  } catch {
    throw invalid(`mcpTools: proxyUrl ${JSON.stringify(proxyUrl)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw invalid(`mcpTools: proxyUrl ${JSON.stringify(proxyUrl)} is not an http(s) URL`);
  return new URL(`${base.href.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
}

function invalid(message: string): VigilError {
  return new VigilError('invalid_options', message);
}
