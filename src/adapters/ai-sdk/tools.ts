/**
 * AI SDK tools (`tool({ description, inputSchema, execute })`) as Vigil
 * tools, so tools written for the AI SDK carry over: the record's key is
 * the Vigil name (`lookup`, or `github.create_issue`), the schema becomes
 * JSON Schema (a `jsonSchema(…)` as is; a zod 4 schema through zod's own
 * `z.toJSONSchema`; any Standard Schema that can say its JSON Schema), and
 * Vigil's schema check validates every input before the policy, an
 * approval or `execute` sees it.
 *
 * `execute` gets the call's idempotency key as its `toolCallId`: the same
 * on every retry of the run and for the approved call, so a tool that
 * passes it on to its API (Stripe's Idempotency-Key) performs the call
 * once. A throw from `execute` is told to the model as the tool's result
 * (`{ error }`), as the AI SDK itself does; it does not fail the run, so
 * the call is not made again by a retry. An abort (lease lost, timeout,
 * shutdown) is rethrown: the run ends, nothing is told.
 */
import { z } from 'zod';
import { VigilError } from '../../errors.js';
import { defineTool, type Tool, type ToolCall } from '../../agent/tools.js';
import type { ToolSpec } from '../../agent/model.js';
import { redact } from './errors.js';

/** The fields of an AI SDK tool this adapter reads (ai 6 and 7 alike). */
export interface AiSdkTool {
  type?: string;
  description?: string;
  inputSchema?: unknown;
  /** Called as execute(input, { toolCallId, messages: [], abortSignal }); typed loosely so any tool()'s fits. */
  execute?: (input: never, options: never) => unknown;
}

export interface AiSdkToolsOptions {
  /** How an approval request for a tool reads to the person asked, by tool name: `{ refund: (input) => \`Refund order ${input.order}\` }`. */
  summaries?: Record<string, (input: Record<string, unknown>) => string>;
}

const SCHEMA_SYMBOL = Symbol.for('vercel.ai.schema');

export function aiSdkTools(tools: Record<string, AiSdkTool>, options: AiSdkToolsOptions = {}): Tool[] {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new VigilError('invalid_options', 'aiSdkTools: pass an object of AI SDK tools by name, e.g. { lookup: tool({ … }) }');
  }
  const summaries = options.summaries ?? {};
  for (const name of Object.keys(summaries)) {
    if (!(name in tools)) throw new VigilError('invalid_options', `aiSdkTools: a summary is given for ${name}, which is not one of the tools`);
  }
  return Object.entries(tools).map(([name, given]) => {
    const fail = (message: string): never => {
      throw new VigilError('invalid_options', `aiSdkTools: tool ${name}: ${message}`);
    };
    if (typeof given !== 'object' || given === null) return fail('is not an AI SDK tool (make it with tool({ description, inputSchema, execute }))');
    if (given.type !== undefined && given.type !== 'function' && given.type !== 'dynamic') return fail(`is a ${given.type} tool, run by its provider, not by Vigil; only tools with an execute function can be hosted`);
    const execute = given.execute;
    if (typeof execute !== 'function') {
      return fail('has no execute function: Vigil runs every tool call itself (after its permission check), so a tool the caller would run by hand cannot be hosted');
    }
    const summary = summaries[name];
    return defineTool<Record<string, unknown>>({
      name,
      description: given.description ?? '',
      inputSchema: toJsonSchema(given.inputSchema, fail),
      ...(summary === undefined ? {} : { summary }),
      async run(input, call) {
        return runExecute(name, execute, input, call);
      },
    });
  });
}

async function runExecute(name: string, execute: NonNullable<AiSdkTool['execute']>, input: Record<string, unknown>, call: ToolCall): Promise<unknown> {
  try {
    return await lastValue(await execute(input as never, { toolCallId: call.idempotencyKey, messages: [], abortSignal: call.signal } as never));
  } catch (error) {
    // The run was aborted: that ends it; the model is told nothing.
    call.signal.throwIfAborted();
    return { error: redact(`${name} failed: ${error instanceof Error ? error.message : String(error)}`) };
  }
}

/** An execute may stream preliminary results (an async iterable); the last one is the result. */
async function lastValue(result: unknown): Promise<unknown> {
  if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) return result;
  let last: unknown;
  for await (const value of result as AsyncIterable<unknown>) last = value;
  return last;
}

function toJsonSchema(schema: unknown, fail: (message: string) => never): ToolSpec['inputSchema'] {
  if (typeof schema !== 'object' || schema === null) return fail('has no inputSchema (a zod schema or jsonSchema({ type: "object", … }))');
  let json: unknown;
  if (SCHEMA_SYMBOL in schema || ('jsonSchema' in schema && 'validate' in schema)) {
    json = (schema as { jsonSchema: unknown }).jsonSchema; // jsonSchema(…), or zodSchema(…) of the AI SDK
  } else if ('_zod' in schema) {
    try {
      json = z.toJSONSchema(schema as z.ZodType, { target: 'draft-7', io: 'input' });
    } catch (error) {
      return fail(`its zod schema has no JSON Schema form: ${(error as Error).message}`);
    }
  } else if ('~standard' in schema) {
    const standard = (schema as { '~standard': { vendor?: string; jsonSchema?: { input?: (options: { target: string }) => unknown } } })['~standard'];
    if (typeof standard.jsonSchema?.input !== 'function') {
      return fail(`its ${standard.vendor ?? 'Standard Schema'} schema cannot say its JSON Schema${standard.vendor === 'zod' ? ' (zod 3: use zod 4, or wrap it with jsonSchema(…))' : '; wrap it with jsonSchema(…)'}`);
    }
    json = standard.jsonSchema.input({ target: 'draft-07' });
  } else {
    return fail('inputSchema is neither a zod schema nor jsonSchema(…)');
  }
  if (typeof json !== 'object' || json === null || typeof (json as { then?: unknown }).then === 'function') return fail('inputSchema did not give a JSON Schema object');
  const { $schema: _dialect, ...rest } = json as Record<string, unknown>;
  if (rest.type !== 'object') return fail('inputSchema must describe an object (JSON Schema type "object")');
  return rest as ToolSpec['inputSchema'];
}
