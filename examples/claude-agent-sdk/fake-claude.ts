/**
 * The local fake of the Messages API this example's test uses, on
 * 127.0.0.1:8790, for trying the example offline (README). It plays a
 * model: "refund order N" calls refund_order, any other message mentioning
 * an order calls lookup_order, and a tool's result is summed up in words.
 */
import { startFakeClaudeStream, callTools, say, toolResults, resultText, type StreamRequest, type Turn } from '../../test/fixtures/fake-claude-stream.js';

export function playModel(request: StreamRequest): Turn {
  const messages = request.body.messages ?? [];
  // Claude Code may send a role "system" item after the user's message.
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const results = last?.role === 'user' ? toolResults({ ...request, body: { messages: [last] } }) : [];
  if (results.length > 0) return say(`Done: ${results.map((result) => resultText(result.content)).join('; ')}`);
  const text = JSON.stringify(last?.content ?? '');
  const order = /order (\d+)/.exec(text)?.[1];
  if (order === undefined) return say('Which order is it about?');
  return /refund/i.test(text) ? callTools([`tu_refund_${order}`, 'mcp__vigil__refund_order', { order }]) : callTools([`tu_lookup_${order}`, 'mcp__vigil__lookup_order', { order }]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fake = await startFakeClaudeStream({ port: Number(process.env.FAKE_CLAUDE_PORT ?? 8790) });
  fake.setFallback(playModel);
  console.log(`fake Messages API on ${fake.url} (Ctrl-C to stop)`);
}
