/** claudeAgent with examples/mcp-tools' stdio server through mcpTools: each cycle's message makes the fake model call echo.say once. */
import { fileURLToPath } from 'node:url';
import { claudeAgent } from '../../src/agent/claude/index.js';
import { mcpTools } from '../../src/adapters/mcp/index.js';
import { fakeAnthropicUrl } from './fake-urls.js';

const echo = await mcpTools({
  servers: { echo: { command: process.execPath, args: ['--import', 'tsx', fileURLToPath(new URL('../../examples/mcp-tools/server.ts', import.meta.url))], env: {} } },
});

export default claudeAgent({ name: 'bench-mcp', model: 'claude-fake', apiKey: 'sk-ant-fake', baseURL: fakeAnthropicUrl(), tools: echo, permissions: { 'echo.say': 'allow' } });
