export { claudeModel, type ClaudeModelOptions } from './claude-model.js';
