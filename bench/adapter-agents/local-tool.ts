/** The MCP pair's peer: the same echo.say, written in-process with defineTool. */
import { claudeAgent } from '../../src/agent/claude/index.js';
import { defineTool } from '../../src/agent/tools.js';
import { fakeAnthropicUrl } from './fake-urls.js';

const lines: string[] = [];
const say = defineTool<{ text: string }>({
  name: 'echo.say',
  description: 'Says the text back.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: async ({ text }) => (lines.push(text), `echo: ${text}`),
});

export default claudeAgent({ name: 'bench-local-tool', model: 'claude-fake', apiKey: 'sk-ant-fake', baseURL: fakeAnthropicUrl(), tools: [say], permissions: { 'echo.say': 'allow' } });
