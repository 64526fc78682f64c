/** toolAgent on aiSdkModel over @ai-sdk/anthropic, against the Anthropic fake: the same fake as claudeAgent's. */
import { createAnthropic } from '@ai-sdk/anthropic';
import { toolAgent } from '../../src/agent/tool-loop.js';
import { aiSdkModel } from '../../src/adapters/ai-sdk/index.js';
import { fakeAnthropicUrl } from './fake-urls.js';

const anthropic = createAnthropic({ baseURL: `${fakeAnthropicUrl()}/v1`, apiKey: 'sk-ant-fake' });
export default toolAgent({ name: 'bench-ai-sdk-anthropic', model: aiSdkModel(anthropic('claude-fake'), { maxOutputTokens: 1024 }) });
