/** aiSdkModel with ai 6's providers (@ai-sdk/anthropic 3, @ai-sdk/openai-compatible 2): see model-suite.ts. */
import { modelSuite } from './model-suite.js';

modelSuite('ai 6', async () => {
  const [{ createAnthropic }, { createOpenAICompatible }] = await Promise.all([import('@ai-sdk/anthropic'), import('@ai-sdk/openai-compatible')]);
  const { tool, jsonSchema } = await import('ai');
  return { createAnthropic, createOpenAICompatible, tool: tool as never, jsonSchema: jsonSchema as never };
});
