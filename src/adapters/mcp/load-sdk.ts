/**
 * The MCP SDK, loaded when `mcpTools` is first called (an optional peer:
 * load-peer.ts turns a missing one into a clear error). Types only at the
 * top, so importing this adapter's door loads nothing of the SDK.
 */
import { loadPeer } from '../load-peer.js';

export type McpSdk = Awaited<ReturnType<typeof importSdk>>;

async function importSdk() {
  const [client, stdio, http, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    StreamableHTTPError: http.StreamableHTTPError,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}

let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= loadPeer('@modelcontextprotocol/sdk', 'mcp', importSdk);
  // A failed load is not cached: installing the package and calling again works.
  loading.catch(() => (loading = undefined));
  return loading;
}
