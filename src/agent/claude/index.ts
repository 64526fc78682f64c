export { claudeModel, type ClaudeModelOptions } from './claude-model.js';
export { claudeAgent, type ClaudeAgentOptions } from './claude-agent.js';
export { DEFAULT_CLAUDE_MODEL } from './default-model.js';
