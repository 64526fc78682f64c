/**
 * What `npm start` runs when ANTHROPIC_API_KEY is set and no agent is
 * configured: the demo agent's refund demo (demo-agent.ts) with Claude deciding. It may
 * remember things (memory tools, allowed), and it may refund an order only
 * after a person says yes on the one-tap link (ask, one hour). The refund
 * goes to the same stand-in ledger as the demo agent, keyed by the
 * approval event, so it happens once however often the run is retried.
 */
import type { Agent } from '../agent/agent.js';
import { claudeAgent } from '../agent/claude/claude-agent.js';
import { DEFAULT_CLAUDE_MODEL } from '../agent/claude/default-model.js';
import { defineTool } from '../agent/tools.js';
import { memoryPermissions, memoryTools } from './memory-tools.js';
import { RefundLedger } from './refund-ledger.js';

const HOUR = 3_600_000;

export interface ClaudeDemoOptions {
  refundsFile: string;
  apiKey: string;
  model?: string;
  baseURL?: string;
}

const SYSTEM = `You are the support assistant of a small online shop, answering customers by chat.
Be brief. You can remember facts about the customer with the memory tools.
You can refund an order with the refund tool; a person approves each refund before it happens,
so call it when the customer asks for one and say that it awaits approval.`;

export function createClaudeDemoAgent(options: ClaudeDemoOptions): Agent {
  const ledger = new RefundLedger(options.refundsFile);
  const refund = defineTool<{ order: string }>({
    name: 'refund',
    description: 'Refund an order in full. A person approves it first.',
    inputSchema: { type: 'object', properties: { order: { type: 'string', description: 'the order number' } }, required: ['order'] },
    summary: ({ order }) => `Refund order ${order}`,
    run: async ({ order }, call) => {
      const performed = await ledger.refund({ idempotencyKey: call.idempotencyKey, inboxId: call.inboxId, order, approvalId: call.approvalId ?? '(allowed without approval)', at: Date.now() });
      return { order, refunded: true, performedNow: performed };
    },
  });
  return claudeAgent({
    name: 'claude-example',
    model: options.model ?? DEFAULT_CLAUDE_MODEL,
    system: SYSTEM,
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    tools: [refund, ...memoryTools()],
    permissions: { refund: { ask: { expiresInMs: HOUR } }, ...memoryPermissions },
  });
}
