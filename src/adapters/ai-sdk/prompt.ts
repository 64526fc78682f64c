/**
 * Vigil's conversation (conversation.ts, the Messages API's shape) as an AI
 * SDK prompt: an assistant turn's text and tool_use blocks become text and
 * tool-call parts; a user turn's tool_result blocks become one `tool`
 * message (right after the calls they answer, as every provider needs),
 * its text blocks a user message after it. A refused or failed call
 * (is_error) is an `error-text` output, so the provider marks it as an
 * error (Anthropic's is_error) where it can.
 */
import { VigilError } from '../../errors.js';
import type { TextBlock, ToolResultBlock, ToolUseBlock, Turn } from '../../agent/conversation.js';
import type { ToolSpec } from '../../agent/model.js';
import type { FunctionTool, PromptMessage } from './spec.js';

export function toPrompt(history: readonly Turn[], system: string | undefined): PromptMessage[] {
  if (!Array.isArray(history) || history.length === 0 || history[history.length - 1]!.role !== 'user') {
    throw new VigilError('invalid_argument', 'aiSdkModel.step: the history must end with a user turn');
  }
  const prompt: PromptMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
  // A tool result names only the call's id; the AI SDK also wants the tool's name.
  const toolNames = new Map<string, string>();
  for (const turn of history) {
    if (turn.role === 'assistant') {
      prompt.push({
        role: 'assistant',
        content: turn.content.map((block: TextBlock | ToolUseBlock) => {
          if (block.type === 'text') return { type: 'text', text: block.text };
          toolNames.set(block.id, block.name);
          return { type: 'tool-call', toolCallId: block.id, toolName: block.name, input: block.input };
        }),
      });
      continue;
    }
    const results = turn.content.flatMap((block: TextBlock | ToolResultBlock) => (block.type === 'tool_result' ? [block] : []));
    const texts = turn.content.flatMap((block: TextBlock | ToolResultBlock) => (block.type === 'text' ? [{ type: 'text' as const, text: block.text }] : []));
    if (results.length > 0) {
      prompt.push({
        role: 'tool',
        content: results.map((result: ToolResultBlock) => {
          const toolName = toolNames.get(result.tool_use_id);
          if (toolName === undefined) throw new VigilError('invalid_argument', `aiSdkModel.step: a tool result answers ${result.tool_use_id}, which no earlier assistant turn called`);
          return { type: 'tool-result', toolCallId: result.tool_use_id, toolName, output: { type: result.is_error === true ? 'error-text' : 'text', value: result.content } };
        }),
      });
    }
    if (texts.length > 0) prompt.push({ role: 'user', content: texts });
  }
  return prompt;
}

export function toFunctionTools(specs: readonly ToolSpec[]): FunctionTool[] {
  return specs.map((spec) => ({ type: 'function', name: spec.name, description: spec.description, inputSchema: spec.inputSchema }));
}
