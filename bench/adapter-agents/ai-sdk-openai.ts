/** toolAgent on aiSdkModel over @ai-sdk/openai-compatible, against the OpenAI Chat Completions fake. */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { toolAgent } from '../../src/agent/tool-loop.js';
import { aiSdkModel } from '../../src/adapters/ai-sdk/index.js';
import { fakeOpenAIUrl } from './fake-urls.js';

const openai = createOpenAICompatible({ name: 'openai-compatible', baseURL: fakeOpenAIUrl(), apiKey: 'sk-fake' });
export default toolAgent({ name: 'bench-ai-sdk-openai', model: aiSdkModel(openai('fake-model')) });
