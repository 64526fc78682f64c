/**
 * Vigil's tools, served to Claude Code by in-process MCP servers (the
 * SDK's `createSdkMcpServer`): `vigil` for undotted names, and one per
 * first part of a dotted name (tool-names.ts, `servedAs`). The handler runs a call only
 * if Vigil's hook let that exact call through (policy-hook.ts, `grantFor`):
 * a call that somehow reached it otherwise is refused, not run. The tool
 * gets the call's idempotency key and approval id, and a `sideEffect` tool
 * goes through the ledger of side effects (ToolBox.runGranted), as under toolAgent.
 */
import type { McpSdkServerConfigWithInstance } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import type { AgentContext } from '../../agent/agent.js';
import type { Performed, Tool } from '../../agent/tools.js';
import type { Policy } from './policy-hook.js';
import { servedAs } from './tool-names.js';

type Sdk = typeof import('@anthropic-ai/claude-agent-sdk');

/**
 * `failed` is told of a tool that throws: as under toolAgent, that fails the
 * run (retried with the same keys), rather than becoming a message the
 * model could talk its way around.
 */
export function vigilToolsServers(sdk: Sdk, tools: readonly Tool[], ctx: AgentContext, policy: Policy, failed: (error: unknown) => void): Record<string, McpSdkServerConfigWithInstance> {
  const byServer = new Map<string, Tool[]>();
  for (const tool of tools) {
    const { server } = servedAs(tool.name);
    byServer.set(server, [...(byServer.get(server) ?? []), tool]);
  }
  return Object.fromEntries([...byServer].map(([server, served]) => [server, toolsServer(sdk, server, served, ctx, policy, failed)]));
}

function toolsServer(sdk: Sdk, name: string, tools: readonly Tool[], ctx: AgentContext, policy: Policy, failed: (error: unknown) => void): McpSdkServerConfigWithInstance {
  return sdk.createSdkMcpServer({
    name,
    // Connected before the first prompt: a resumed deferred call needs its tool at once.
    alwaysLoad: true,
    tools: tools.map((tool) => ({
      name: servedAs(tool.name).tool,
      description: tool.description,
      // The SDK takes zod; Vigil's tools have JSON Schema (checked again by the hook with Vigil's own validator).
      inputSchema: z.fromJSONSchema(tool.inputSchema as never) as never,
      handler: async (args: unknown) => {
        const input = (args ?? {}) as Record<string, unknown>;
        const grant = policy.grantFor(tool.name, input);
        if (grant === undefined) return { content: [{ type: 'text' as const, text: `Not done: ${tool.name} was not allowed by Vigil's policy` }], isError: true };
        let done: Performed;
        try {
          // Through the toolbox, so a side-effect tool goes through the ledger as under toolAgent.
          done = await ctx.tools.runGranted(tool.name, input, grant);
        } catch (error) {
          failed(error);
          return { content: [{ type: 'text' as const, text: `Not done: ${tool.name} failed` }], isError: true };
        }
        if (done.status !== 'ok') return { content: [{ type: 'text' as const, text: `Not done: ${done.reason}` }], isError: true };
        const output = done.output;
        return { content: [{ type: 'text' as const, text: JSON.stringify(output ?? null) }] };
      },
    })),
  });
}
