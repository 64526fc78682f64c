/**
 * An agent with an MCP server's tools (server.ts, over stdio). In Vigil
 * they are `echo.say` and `echo.delete_all` (the policy, approvals and the
 * dashboard use these names); the model is shown `echo__say` and
 * `echo__delete_all`, since model APIs refuse dots.
 *
 * The server is marked trusted, so its annotations pick the defaults
 * (`say` is read-only: allowed; `delete_all` is not: asked, 24 h), and
 * `policy()` puts this agent's own lines on top: deleting asks with a 1 h
 * expiry. An untrusted server's annotations would pick nothing: its tools
 * are denied until the policy names them.
 *
 *   ANTHROPIC_API_KEY=… VIGIL_TOKEN=$(openssl rand -hex 16) npx vigil serve --config vigil.json
 */
import { fileURLToPath } from 'node:url';
import { claudeAgent, DEFAULT_CLAUDE_MODEL } from 'vigil-agents';
import { mcpTools } from 'vigil-agents/mcp';

export const echo = await mcpTools({
  servers: {
    // The child gets this env and a minimal PATH, nothing of the service's (no secrets).
    echo: { command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('./server.ts', import.meta.url))], env: {}, trusted: true },
  },
});

export default claudeAgent({
  name: 'mcp-tools',
  model: process.env.VIGIL_MODEL ?? DEFAULT_CLAUDE_MODEL,
  system: 'You repeat what people say with the echo tools, and forget it all when asked. Be brief.',
  tools: echo,
  permissions: echo.policy({ 'echo.delete_*': { ask: { expiresInMs: 3_600_000 } } }),
});
