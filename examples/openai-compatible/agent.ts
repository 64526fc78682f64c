/**
 * A support agent on any OpenAI-compatible model (see model.ts): it can
 * look an order up on its own, and must ask a person before it cancels one.
 *
 *   VIGIL_MODEL_URL=http://127.0.0.1:11434/v1 VIGIL_MODEL=llama3.1 npx vigil serve --config vigil.json   # Ollama
 *   VIGIL_MODEL_URL=https://api.openai.com/v1 VIGIL_MODEL=gpt-4.1-mini OPENAI_API_KEY=… npx vigil serve --config vigil.json
 */
import { defineTool, toolAgent } from 'vigil-agents';
import { chatCompletionsModel } from './model.ts';

/** Stands in for your order system. */
const ORDERS: Record<string, { status: string; total: string }> = {
  '42': { status: 'shipped', total: '$42.00' },
  '43': { status: 'processing', total: '$19.99' },
};

const lookupOrder = defineTool<{ order: string }>({
  name: 'lookup_order',
  description: "Look up an order's status and total by its number.",
  inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: false },
  run: async ({ order }) => ORDERS[order] ?? { error: `no order ${order}` },
});

const cancelOrder = defineTool<{ order: string }>({
  name: 'cancel_order',
  description: 'Cancel an order that has not shipped.',
  inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: false },
  summary: ({ order }) => `Cancel order ${order}`, // what the approval link asks
  run: async ({ order }) => {
    const found = ORDERS[order];
    if (found === undefined || found.status === 'shipped') return { cancelled: false };
    found.status = 'cancelled';
    return { cancelled: true };
  },
});

export default toolAgent({
  name: 'support',
  model: chatCompletionsModel({
    baseUrl: process.env.VIGIL_MODEL_URL ?? 'http://127.0.0.1:11434/v1',
    model: process.env.VIGIL_MODEL ?? 'llama3.1',
    ...(process.env.OPENAI_API_KEY === undefined ? {} : { apiKey: process.env.OPENAI_API_KEY }),
    system: 'You are the support assistant of a small shop. Be brief.',
  }),
  tools: [lookupOrder, cancelOrder],
  // Looking up is harmless; cancelling waits for a person's yes (the run ends and resumes on the answer).
  permissions: { lookup_order: 'allow', cancel_order: { ask: { expiresInMs: 3_600_000 } } },
});
