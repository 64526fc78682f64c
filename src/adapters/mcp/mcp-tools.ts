/**
 * `mcpTools({ servers })`: each server connected and its tools listed once,
 * at startup, as Vigil tools named `<server>.<tool>` (models see
 * `<server>__<tool>`, tool-names.ts), usable as `tools` by any agent.
 *
 * Every call goes through the agent's permission policy like any tool's;
 * `permissions` holds the defaults the annotations of *trusted* servers
 * suggest (default-permissions.ts), nothing for the others.
 */
import { checkToolNames } from '../../agent/tool-names.js';
import type { Permissions } from '../../agent/permissions.js';
import type { Tool } from '../../agent/tools.js';
import { McpConnection } from './connection.js';
import { defaultPermissions, withPolicy, type ListedTool } from './default-permissions.js';
import { loadSdk } from './load-sdk.js';
import { resolveServers, type McpToolsOptions } from './server-config.js';
import { toolOutput } from './tool-output.js';

export interface McpTools extends ReadonlyArray<Tool> {
  /** Defaults from trusted servers' annotations (read-only → allow, else ask); none for untrusted servers. */
  readonly permissions: Permissions;
  /**
   * The defaults with your lines on top, where your patterns also override
   * the defaults' exact names: `permissions: mcp.policy({ 'github.delete_*': 'deny' })`.
   */
  policy(lines: Permissions): Permissions;
  /** Closes every connection (stops stdio children). */
  close(): Promise<void>;
}

export async function mcpTools(options: McpToolsOptions): Promise<McpTools> {
  const { servers, askExpiresInMs } = resolveServers(options);
  const sdk = await loadSdk();
  const connections = servers.map((server) => new McpConnection(server, sdk));
  const close = async (): Promise<void> => void (await Promise.all(connections.map((connection) => connection.close())));
  try {
    const listed = await Promise.all(connections.map(async (connection) => ({ connection, tools: await connection.listTools() })));
    const tools: Tool[] = [];
    const annotated: ListedTool[] = [];
    for (const { connection, tools: serverTools } of listed) {
      for (const mcpTool of serverTools) {
        const vigilName = `${connection.server.name}.${mcpTool.name}`;
        tools.push(vigilTool(connection, mcpTool.name, vigilName, mcpTool.description, mcpTool.inputSchema));
        annotated.push({ vigilName, trusted: connection.server.trusted, annotations: mcpTool.annotations });
      }
    }
    checkToolNames(tools.map((tool) => tool.name));
    const permissions = defaultPermissions(annotated, askExpiresInMs);
    return Object.assign(tools, { permissions, policy: (lines: Permissions) => withPolicy(permissions, lines), close });
  } catch (error) {
    // A server that cannot be listed at startup stops the start: its tools would be missing.
    await close();
    throw error;
  }
}

function vigilTool(connection: McpConnection, mcpName: string, vigilName: string, description: string | undefined, inputSchema: Tool['inputSchema']): Tool {
  return {
    name: vigilName,
    description: description ?? `${mcpName} (MCP server ${connection.server.name})`,
    inputSchema,
    async run(input, call) {
      return toolOutput(await connection.callTool(mcpName, input, call));
    },
  };
}
