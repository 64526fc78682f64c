/**
 * aiSdkModel with ai 7's providers (@ai-sdk/anthropic 4, @ai-sdk/openai-compatible 3,
 * installed under the aliases ai-sdk-anthropic4 and ai-sdk-openai-compatible3):
 * see model-suite.ts. They declare Node 22+, so this file runs in the Node 24
 * pass of .ci/run and says why it skips on Node 20.
 */
import { describe, it } from 'vitest';
import { modelSuite } from './model-suite.js';

const major = Number(process.versions.node.split('.')[0]);

if (major >= 22) {
  modelSuite('ai 7', async () => {
    const [{ createAnthropic }, { createOpenAICompatible }] = await Promise.all([import('ai-sdk-anthropic4'), import('ai-sdk-openai-compatible3')]);
    const { tool, jsonSchema } = await import('ai7');
    return { createAnthropic, createOpenAICompatible, tool: tool as never, jsonSchema: jsonSchema as never };
  });
} else {
  const why = 'ai 7 and its providers declare Node 22+; this file runs in the Node 24 pass of .ci/run';
  console.log(`model-ai7.test.ts skipped on Node ${process.versions.node}: ${why}`);
  describe('aiSdkModel with ai 7 providers', () => {
    // Skip reason (stated, printed above, and in the test's name): ai 7 cannot run on this Node; CI's Node 24 pass runs it.
    it.skip(`skipped on Node ${process.versions.node}: ${why}`, () => undefined);
  });
}
