/**
 * A `Model` for any server that speaks the OpenAI Chat Completions API
 * (`POST <baseUrl>/chat/completions` with `tools`): OpenAI itself, or a local
 * model behind Ollama, vLLM, llama.cpp's server or LM Studio. `toolAgent`
 * runs the same tool loop on it as `claudeAgent` runs on Claude: permissions,
 * approvals that resume the call once, the session saved with the run.
 *
 * The conversation Vigil keeps is in the Messages API's shape (content
 * blocks); `step` maps it to chat messages and the reply back.
 */
import { ModelError, type AssistantTurn, type Model, type ModelReply, type StopReason, type ToolSpec, type Turn } from 'vigil-agents';

export interface ChatModelOptions {
  /** The model's name on that server, e.g. 'gpt-4.1-mini' or 'llama3.1'. */
  model: string;
  /** Up to and including `/v1`, e.g. 'https://api.openai.com/v1' or 'http://127.0.0.1:11434/v1' (Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when given (a local server usually needs none). */
  apiKey?: string;
  system?: string;
  maxTokens?: number;
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

interface ChatReply {
  choices?: { message?: ChatMessage; finish_reason?: string }[];
  error?: { message?: string };
}

export function chatCompletionsModel(options: ChatModelOptions): Model {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    name: options.model,
    async step(history: readonly Turn[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelReply> {
      const body = {
        model: options.model,
        max_tokens: options.maxTokens ?? 1024,
        messages: [...(options.system === undefined ? [] : [{ role: 'system', content: options.system }]), ...history.flatMap(toMessages)],
        ...(tools.length === 0 ? {} : { tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })) }),
      };
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
          body: JSON.stringify(body),
          signal,
        });
      } catch (error) {
        // A lost connection: worth trying again later (the run's events are retried with backoff).
        throw new ModelError(`${url}: ${(error as Error).message}`, true, undefined, { cause: error });
      }
      const reply = (await response.json().catch(() => ({}))) as ChatReply;
      if (!response.ok) {
        // Rate limits and server errors pass; a bad request or a wrong key will fail the same way every time.
        const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
        throw new ModelError(`${url}: ${response.status} ${reply.error?.message ?? ''}`.trim(), retryable, response.status);
      }
      const choice = reply.choices?.[0];
      if (choice?.message === undefined) throw new ModelError(`${url}: the reply has no choices`, true, response.status);
      return { turn: fromMessage(choice.message), stopReason: stopReason(choice.finish_reason) };
    },
  };
}

/** One Vigil turn as chat messages: tool results become `tool` messages, right after the call they answer. */
function toMessages(turn: Turn): ChatMessage[] {
  if (turn.role === 'assistant') {
    const text = turn.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
    const calls = turn.content.flatMap((block) =>
      block.type === 'tool_use' ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }] : [],
    );
    return [{ role: 'assistant', content: text === '' ? null : text, ...(calls.length === 0 ? {} : { tool_calls: calls }) }];
  }
  const results: ChatMessage[] = turn.content.flatMap((block) =>
    block.type === 'tool_result' ? [{ role: 'tool' as const, tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${block.content}` : block.content }] : [],
  );
  const text = turn.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
  return text === '' ? results : [...results, { role: 'user', content: text }];
}

function fromMessage(message: ChatMessage): AssistantTurn {
  const content: AssistantTurn['content'] = [];
  if (typeof message.content === 'string' && message.content.trim() !== '') content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(call.function.arguments) as Record<string, unknown>;
    } catch {
      // A model that wrote broken JSON: its input is checked against the tool's schema and refused to it.
      input = { unparsed: call.function.arguments };
    }
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
  }
  return { role: 'assistant', content };
}

function stopReason(finish: string | undefined): StopReason {
  if (finish === 'tool_calls') return 'tool_use';
  if (finish === 'length') return 'max_tokens';
  return 'end_turn';
}
