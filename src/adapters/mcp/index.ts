/**
 * `vigil-agents/mcp`: MCP servers' tools as Vigil tools. The SDK
 * (`@modelcontextprotocol/sdk`, an optional peer) is loaded by `mcpTools`
 * itself, so importing this door loads nothing.
 */
export { mcpTools, type McpTools } from './mcp-tools.js';
export { DEFAULT_ASK_EXPIRES_IN_MS, type HttpServer, type McpServerConfig, type McpToolsOptions, type StdioServer } from './server-config.js';
export { IDEMPOTENCY_META_KEY } from './connection.js';
