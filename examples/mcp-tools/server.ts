/**
 * A tiny MCP server over stdio, standing in for any you would use
 * (`npx -y @modelcontextprotocol/server-filesystem`, GitHub's, your own):
 * `say` keeps a line and says it back (read-only, by its annotations),
 * `delete_all` forgets every line kept (destructive). Each call logs the
 * idempotency key Vigil sends in `_meta`, to stderr, so you can see a
 * retried call carry the same one.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const lines: string[] = [];
const server = new McpServer({ name: 'echo', version: '1.0.0' });

server.registerTool(
  'say',
  { description: 'Says the text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
  ({ text }) => {
    lines.push(text);
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  },
);

server.registerTool(
  'delete_all',
  { description: 'Forgets every line said so far.', inputSchema: {}, annotations: { destructiveHint: true } },
  (_input, extra) => {
    // A server with real side effects would remember this key and do the work once per key.
    console.error(`delete_all, idempotency key ${String(extra._meta?.['vigil/idempotencyKey'])}`);
    const count = lines.splice(0).length;
    return { content: [{ type: 'text', text: `forgot ${count} lines` }], structuredContent: { forgotten: count } };
  },
);

await server.connect(new StdioServerTransport());
