/**
 * What the model is told of a `tools/call` result. A result with
 * `isError: true` is the server saying the tool failed (bad input, a 404
 * upstream): the model should hear it and may try otherwise, so it is a
 * value, `{ error }`, never a throw (a throw fails the run and retries it).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function toolOutput(result: CallToolResult): unknown {
  const text = (result.content ?? []).map(describe).filter((part) => part !== '').join('\n');
  if (result.isError === true) return { error: text === '' ? 'the tool reported an error without saying why' : text };
  // Structured content is the tool's typed answer; the text beside it is usually the same, serialised.
  if (result.structuredContent !== undefined) return result.structuredContent;
  return text;
}

function describe(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource':
      return 'text' in block.resource && typeof block.resource.text === 'string' ? block.resource.text : `[resource ${block.resource.uri}]`;
    case 'resource_link':
      return `[resource ${block.uri}]`;
    case 'image':
    case 'audio':
      // Not passed on: Vigil's tool results are text (JSON) for every model.
      return `[${block.type} ${block.mimeType}]`;
    default:
      return '';
  }
}
