/**
 * A tool has one name in Vigil (`github.create_issue`: the policy, the
 * approval, the session and the dashboard use it) and one a model sees.
 * Anthropic's and OpenAI's APIs both refuse dots in tool names (theirs is
 * `^[a-zA-Z0-9_-]{1,64}$`), so a dot becomes two underscores
 * (`github__create_issue`); the toolbox maps both ways, so no model adapter
 * has to. Two tools whose model names would clash are refused at startup.
 */
import { VigilError } from '../errors.js';

const VIGIL_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const MODEL_NAME_MAX = 64;

export function modelToolName(name: string): string {
  return name.replaceAll('.', '__');
}

/** Throws invalid_options for a name no model API accepts, or two names that would reach the model as one. */
export function checkToolNames(names: readonly string[]): void {
  const byModelName = new Map<string, string>();
  for (const name of names) {
    if (typeof name !== 'string' || !VIGIL_NAME.test(name)) {
      throw new VigilError('invalid_options', `tool name ${JSON.stringify(name)}: use letters, digits, "_" and "-", with "." between parts (server.tool)`);
    }
    const modelName = modelToolName(name);
    if (modelName.length > MODEL_NAME_MAX) throw new VigilError('invalid_options', `tool name ${name}: a model sees it as ${modelName}, longer than the ${MODEL_NAME_MAX} characters model APIs accept`);
    const other = byModelName.get(modelName);
    if (other !== undefined) {
      throw new VigilError('invalid_options', other === name ? `two tools share a name: ${name}` : `tools ${other} and ${name} would both reach the model as ${modelName}`);
    }
    byModelName.set(modelName, name);
  }
}
