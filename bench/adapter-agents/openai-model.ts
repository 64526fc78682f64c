/** The peer on the OpenAI fake: toolAgent on the hand-written Chat Completions Model of examples/openai-compatible. */
import { toolAgent } from '../../src/agent/tool-loop.js';
import { chatCompletionsModel } from '../../examples/openai-compatible/model.js';
import { fakeOpenAIUrl } from './fake-urls.js';

export default toolAgent({ name: 'bench-openai-model', model: chatCompletionsModel({ baseUrl: fakeOpenAIUrl(), apiKey: 'sk-fake', model: 'fake-model' }) });
