/**
 * A support agent written with the Claude Agent SDK, hosted by Vigil:
 * it looks orders up on its own and refunds only after a person says yes
 * (a durable approval: the answer may come hours later, after a restart,
 * on another machine). Claude Code's built-in tools are off: the policy
 * names none of them.
 */
import { defineTool } from 'vigil-agents';
import { claudeAgentSdk } from 'vigil-agents/claude-agent-sdk';

const orders: Record<string, { total: number; status: string }> = { '42': { total: 19.5, status: 'delivered' }, '7': { total: 120, status: 'shipped' } };
const refunded = new Set<string>();

const lookupOrder = defineTool<{ order: string }>({
  name: 'lookup_order',
  description: 'Looks an order up by its number.',
  inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  run: async ({ order }) => orders[order] ?? { error: `no order ${order}` },
});

const refundOrder = defineTool<{ order: string }>({
  name: 'refund_order',
  description: 'Refunds an order in full.',
  inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  summary: ({ order }) => `Refund order ${order}`,
  // A real one hands call.idempotencyKey to the payments API, so a retried run refunds once.
  run: async ({ order }) => {
    refunded.add(order);
    return { refunded: order };
  },
});

export default claudeAgentSdk({
  name: 'support',
  options: {
    model: process.env.CLAUDE_MODEL ?? 'claude-sonnet-5',
    systemPrompt: 'You are a support agent. Look orders up before you answer; refund only when asked.',
    maxTurns: 8,
    maxBudgetUsd: 0.5,
  },
  tools: [lookupOrder, refundOrder],
  permissions: {
    lookup_order: 'allow',
    refund_order: { ask: { expiresInMs: 24 * 60 * 60 * 1000 } },
  },
});
