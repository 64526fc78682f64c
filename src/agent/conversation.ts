/**
 * The conversation a session keeps between runs, in the Messages API's own
 * shape: text, tool calls and their results as content blocks. The Claude
 * adapter sends it as is; another model maps it. Plain JSON throughout, so
 * a session is stored as one JSON value in the same transaction as the
 * run's finish.
 */
export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  /** The model's id for this call; the result must name it. */
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  /** The call failed or was refused (denied, declined, expired): the model should not retry it blindly. */
  is_error?: boolean;
}

export type UserTurn = { role: 'user'; content: (TextBlock | ToolResultBlock)[] };
export type AssistantTurn = { role: 'assistant'; content: (TextBlock | ToolUseBlock)[] };
export type Turn = UserTurn | AssistantTurn;

/** The text of an assistant turn, its text blocks joined. */
export function textOf(turn: AssistantTurn): string {
  return turn.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n\n')
    .trim();
}
