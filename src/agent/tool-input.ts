/**
 * A tool's input is checked against its JSON Schema before anything is done
 * with it: before it runs, and before a person is asked to approve it (a
 * malformed call is the model's to fix, not a person's to judge). Schemas are
 * compiled once per tool, when the agent is defined, so a broken schema fails
 * at startup.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { VigilError } from '../errors.js';
import type { ToolSpec } from './model.js';

// allErrors: the model gets every problem at once; strict: false accepts the
// annotations models and SDKs put in schemas (examples, titles, custom keys).
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

export function compileToolSchema(tool: ToolSpec): void {
  if (compiled.has(tool)) return;
  if (typeof tool.inputSchema !== 'object' || tool.inputSchema === null || tool.inputSchema.type !== 'object') {
    throw new VigilError('invalid_options', `tool ${tool.name}: inputSchema must be a JSON Schema with type "object"`);
  }
  try {
    compiled.set(tool, ajv.compile(tool.inputSchema));
  } catch (error) {
    throw new VigilError('invalid_options', `tool ${tool.name}: inputSchema is not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
}

/** Null when the input fits the tool's schema, otherwise what is wrong, for the model to read. */
export function inputProblems(tool: ToolSpec, input: unknown): string | null {
  compileToolSchema(tool);
  const validate = compiled.get(tool)!;
  if (validate(input)) return null;
  return (validate.errors ?? []).map((error) => `${error.instancePath === '' ? 'input' : `input${error.instancePath}`} ${error.message ?? 'is invalid'}`).join('; ');
}
