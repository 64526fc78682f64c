/**
 * A support agent on any AI SDK provider: Vigil's durable tool loop
 * (toolAgent) with the model through aiSdkModel and the tools written with
 * the AI SDK's tool(). Looking an order up runs on its own; cancelling one
 * waits for a person's yes, which may come hours later, after a restart.
 *
 *   AI_SDK_PROVIDER=anthropic ANTHROPIC_API_KEY=… npx vigil serve --config vigil.json
 *   AI_SDK_PROVIDER=openai-compatible OPENAI_BASE_URL=http://127.0.0.1:11434/v1 VIGIL_MODEL=llama3.1 npx vigil serve --config vigil.json
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool } from 'ai';
import { z } from 'zod';
import { DEFAULT_CLAUDE_MODEL, toolAgent, type Agent, type Model } from 'vigil-agents';
import { aiSdkModel, aiSdkTools } from 'vigil-agents/ai-sdk';

/** Stands in for your order system. */
const ORDERS: Record<string, { status: string; total: string }> = {
  '42': { status: 'shipped', total: '$42.00' },
  '43': { status: 'processing', total: '$19.99' },
};

// Tools as you would write them for generateText: they carry over unchanged.
const lookup_order = tool({
  description: "Look up an order's status and total by its number.",
  inputSchema: z.object({ order: z.string() }),
  execute: async ({ order }) => ORDERS[order] ?? { error: `no order ${order}` },
});

const cancel_order = tool({
  description: 'Cancel an order that has not shipped.',
  inputSchema: z.object({ order: z.string() }),
  // toolCallId is Vigil's idempotency key for this call: hand it to an API that takes one.
  execute: async ({ order }) => {
    const found = ORDERS[order];
    if (found === undefined || found.status === 'shipped') return { cancelled: false };
    found.status = 'cancelled';
    return { cancelled: true };
  },
});

const SYSTEM = 'You are the support assistant of a small shop. Be brief.';

/** The model, by AI_SDK_PROVIDER: any provider's model object works the same way. */
export function modelFromEnv(env: NodeJS.ProcessEnv = process.env): Model {
  const provider = env.AI_SDK_PROVIDER ?? 'anthropic';
  if (provider === 'anthropic') {
    // ANTHROPIC_BASE_URL is the API's root (as the Anthropic SDK takes it); the AI SDK's provider wants …/v1.
    const baseURL = env.ANTHROPIC_BASE_URL === undefined ? undefined : `${env.ANTHROPIC_BASE_URL.replace(/\/$/, '')}/v1`;
    const anthropic = createAnthropic({ ...(baseURL === undefined ? {} : { baseURL }), ...(env.ANTHROPIC_API_KEY === undefined ? {} : { apiKey: env.ANTHROPIC_API_KEY }) });
    return aiSdkModel(anthropic(env.VIGIL_MODEL ?? DEFAULT_CLAUDE_MODEL), { system: SYSTEM, maxOutputTokens: 1024 });
  }
  if (provider === 'openai-compatible') {
    const openai = createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: env.OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1', // Ollama's
      ...(env.OPENAI_API_KEY === undefined ? {} : { apiKey: env.OPENAI_API_KEY }),
    });
    return aiSdkModel(openai(env.VIGIL_MODEL ?? 'llama3.1'), { system: SYSTEM });
  }
  throw new Error(`AI_SDK_PROVIDER must be anthropic or openai-compatible, not ${JSON.stringify(provider)}`);
}

export function supportAgent(model: Model): Agent {
  return toolAgent({
    name: 'support',
    model,
    tools: aiSdkTools({ lookup_order, cancel_order }, { summaries: { cancel_order: ({ order }) => `Cancel order ${String(order)}` } }),
    // Looking up is harmless; cancelling waits for a person's yes (the run ends and resumes on the answer).
    permissions: { lookup_order: 'allow', cancel_order: { ask: { expiresInMs: 3_600_000 } } },
  });
}

export default supportAgent(modelFromEnv());
