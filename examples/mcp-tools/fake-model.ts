/**
 * A local fake of the Anthropic Messages API that answers like a model
 * would for this example, so it can be tried offline (README) and tested
 * (test/examples/mcp-tools.test.ts) with the same fake:
 * "forget"/"delete" → calls `echo__delete_all`; anything else → calls
 * `echo__say` with the text; a tool result → "Done: <result>".
 *
 *   npx tsx examples/mcp-tools/fake-model.ts     # prints the ANTHROPIC_BASE_URL to use
 */
import { pathToFileURL } from 'node:url';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer, type RecordedRequest, type ScriptedResponse } from '../../test/agent/claude/fake-messages-server.ts';

interface Block {
  type: string;
  text?: string;
  content?: unknown;
}

export function answerLikeAModel(request: RecordedRequest): ScriptedResponse {
  const messages = (request.body as { messages: { role: string; content: string | Block[] }[] }).messages;
  const last = messages.at(-1)!;
  const blocks: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const result = blocks.find((block) => block.type === 'tool_result');
  if (result !== undefined) return messageReply([{ type: 'text', text: `Done: ${String(result.content)}` }], 'end_turn');
  const said = blocks.filter((block) => block.type === 'text').map((block) => block.text).join(' ');
  const call = /\b(forget|delete)\b/i.test(said) ? { name: 'echo__delete_all', input: {} } : { name: 'echo__say', input: { text: said } };
  return messageReply([{ type: 'tool_use', id: `toolu_${messages.length}`, ...call }], 'tool_use');
}

export async function startFakeModel(): Promise<FakeMessagesServer> {
  const fake = await startFakeMessagesServer();
  fake.setFallback(answerLikeAModel);
  return fake;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const fake = await startFakeModel();
  console.log(`fake Messages API on ${fake.url}\n  ANTHROPIC_BASE_URL=${fake.url} ANTHROPIC_API_KEY=fake`);
}
