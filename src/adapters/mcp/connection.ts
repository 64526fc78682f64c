/**
 * One MCP server's connection, shared by every run of the process: opened
 * once, reused, and opened again when it is gone (the stdio child died, the
 * HTTP session was lost). Reconnecting is bounded (CONNECT_ATTEMPTS): a
 * server that stays down fails the call with a plain Error, so the run is
 * retried later (R5) with the same idempotency keys, and the event is not
 * made dead by one bad minute.
 *
 * A call is never silently repeated on a new connection, with one
 * exception: an HTTP 404 for the session id, which the spec defines as
 * "this session does not exist here" — the server ran nothing, so the call
 * goes again on a new session at once. A connection that died during a
 * call may have run it: that run fails and its retry carries the same
 * idempotency key in `_meta` for the server to dedupe.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { childEnv } from './child-env.js';
import type { McpSdk } from './load-sdk.js';
import type { ResolvedServer } from './server-config.js';
import { proxyOnlyFetch } from './proxy-only-fetch.js';

/** Tries per (re)connection, and the waits between them. */
const CONNECT_ATTEMPTS = 3;
const RETRY_DELAYS_MS = [250, 1_000];
/** One initialize handshake; a server that cannot answer in this is down. */
const CONNECT_TIMEOUT_MS = 10_000;
/** One tools/call, restarted by progress notifications; the run's own signal and timeout bound it too. */
const CALL_TIMEOUT_MS = 5 * 60_000;

/** `_meta` key carrying the call's idempotency key, the same on every retry of the call. */
export const IDEMPOTENCY_META_KEY = 'vigil/idempotencyKey';

interface Live {
  client: Client;
  closed: boolean;
}

export class McpConnection {
  private current: Promise<Live> | null = null;
  private shut = false;

  constructor(
    readonly server: ResolvedServer,
    private readonly sdk: McpSdk,
  ) {}

  /** The server's tools (every page). */
  async listTools(): Promise<McpTool[]> {
    const { client } = await this.live();
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: CONNECT_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async callTool(tool: string, input: Record<string, unknown>, call: { signal: AbortSignal; idempotencyKey: string }): Promise<CallToolResult> {
    for (let sessions = 0; ; sessions++) {
      const live = await this.live();
      try {
        const result = await live.client.callTool(
          { name: tool, arguments: input, _meta: { [IDEMPOTENCY_META_KEY]: call.idempotencyKey } },
          undefined,
          { signal: call.signal, timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true },
        );
        return result as CallToolResult;
      } catch (error) {
        if (call.signal.aborted) throw error;
        if (this.isSessionLost(error)) {
          live.closed = true;
          // The server never saw this call (404: no such session): send it once more on a new one.
          if (sessions === 0) continue;
        }
        if (error instanceof this.sdk.StreamableHTTPError) {
          // The server or the proxy in front of it refused or failed (a 502 while it is down):
          // start over on a new session next time; this run fails and is retried.
          live.closed = true;
          throw new Error(`MCP server ${this.server.name} answered HTTP ${error.code} during ${tool}: ${error.message}; the next call reconnects`, { cause: error });
        }
        if (this.isConnectionLost(error) || live.closed) {
          live.closed = true;
          throw new Error(`MCP server ${this.server.name} went away during ${tool} (${(error as Error).message}); the next call reconnects`, { cause: error });
        }
        throw error;
      }
    }
  }

  /** Closes the connection (a stdio child is stopped); later calls fail. */
  async close(): Promise<void> {
    this.shut = true;
    const current = this.current;
    this.current = null;
    const live = await current?.catch(() => null);
    await live?.client.close().catch(() => undefined);
  }

  /** The open connection, or a new one if there is none or it is gone. */
  private async live(): Promise<Live> {
    const pending = this.current;
    if (pending !== null) {
      const live = await pending.catch(() => null);
      if (live !== null && !live.closed) return live;
      if (live !== null) void live.client.close().catch(() => undefined);
      // Only the first caller to notice replaces it; the others share the new one.
      if (this.current === pending) this.current = null;
    }
    if (this.shut) throw new Error(`MCP server ${this.server.name}: the connection was closed (mcpTools close())`);
    this.current ??= this.connect();
    return this.current;
  }

  private async connect(): Promise<Live> {
    let last: unknown;
    for (let attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 1_000);
      const client = new this.sdk.Client({ name: 'vigil', version: '1' }, { capabilities: {} });
      const live: Live = { client, closed: false };
      client.onclose = () => void (live.closed = true);
      try {
        await client.connect(this.transport(), { timeout: CONNECT_TIMEOUT_MS });
        return live;
      } catch (error) {
        last = error;
        await client.close().catch(() => undefined);
      }
    }
    const reason = last instanceof this.sdk.StreamableHTTPError ? `HTTP ${last.code}: ${last.message}` : ((last as Error | undefined)?.message ?? String(last));
    throw new Error(`MCP server ${this.server.name} did not answer after ${CONNECT_ATTEMPTS} attempts to connect: ${reason}`, { cause: last });
  }

  private transport() {
    const { server, sdk } = this;
    if (server.kind === 'stdio') {
      // stderr is dropped: the service's logs come from its event stream only, and a
      // third-party server's output there could carry anything.
      return new sdk.StdioClientTransport({ command: server.command, args: server.args, env: childEnv(server.env), stderr: 'ignore', ...(server.cwd === undefined ? {} : { cwd: server.cwd }) });
    }
    return new sdk.StreamableHTTPClientTransport(server.url, { fetch: proxyOnlyFetch(server.url) });
  }

  private isSessionLost(error: unknown): boolean {
    return error instanceof this.sdk.StreamableHTTPError && error.code === 404;
  }

  private isConnectionLost(error: unknown): boolean {
    if (error instanceof this.sdk.McpError) return error.code === this.sdk.ErrorCode.ConnectionClosed;
    // fetch's own failure (connection refused or reset): the HTTP server or the proxy is down.
    return error instanceof TypeError && this.server.kind === 'http';
  }
}
