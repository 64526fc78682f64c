/**
 * vigil-agents/ai-sdk: any AI SDK language model as a Vigil Model, and AI
 * SDK tools as Vigil tools, for Vigil's durable tool loop:
 *
 *   toolAgent({ model: aiSdkModel(anthropic('claude-…')), tools: aiSdkTools({ lookup }), permissions })
 */
export { aiSdkModel, type AiSdkModelOptions } from './model.js';
export { aiSdkTools, type AiSdkTool, type AiSdkToolsOptions } from './tools.js';
