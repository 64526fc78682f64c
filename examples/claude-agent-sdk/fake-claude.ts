/**
 * The model this example's test plays, and its README starts by hand: the
 * shared fake Messages API (examples/fakes/anthropic.ts, streamed as Claude
 * Code asks) with a script of its own. "refund order N" calls
 * refund_order, any other message naming an order calls lookup_order, and
 * a tool's result is summed up in words. Started by hand it listens where
 * `npm run fakes -- anthropic` would (127.0.0.1:8793).
 */
import { pathToFileURL } from 'node:url';
import { FAKES, startFakeAnthropic, type ReplyScript } from '../fakes/index.js';

export const playModel: ReplyScript = (call) => {
  if (call.toolResult !== null) return { text: `Done: ${call.toolResult}` };
  const text = call.lastUserText ?? '';
  const order = /order (\d+)/.exec(text)?.[1];
  if (order === undefined) return { text: 'Which order is it about?' };
  // Claude Code names Vigil's tools as MCP tools of the in-process `vigil` server.
  const tool = /refund/i.test(text) ? 'mcp__vigil__refund_order' : 'mcp__vigil__lookup_order';
  return { toolCalls: [{ name: tool, input: { order } }] };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const fake = await startFakeAnthropic({ port: FAKES.anthropic.port, script: playModel, log: (line) => console.log(line) });
  console.log(`fake Messages API on ${fake.url} (Ctrl-C to stop)`);
}
