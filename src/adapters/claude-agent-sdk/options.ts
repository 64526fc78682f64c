/**
 * What a user of `claudeAgentSdk` may set, and what Vigil keeps for itself.
 * The Agent SDK's fail-open defaults are closed here: Vigil sets
 * `permissionMode: 'default'` (left out, Claude Code may start in `'auto'`,
 * where a classifier approves calls), its own PreToolUse hook with
 * `onFailure: 'block'` (the default `'continue'` lets a call through when a
 * hook throws), `canUseTool` as a deny backstop, the child's environment,
 * working directory, session and transcript store. An option that would
 * take one of those back is refused when the agent is defined, naming the
 * key, rather than silently overridden.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { VigilError } from '../../errors.js';
import type { Permissions } from '../../agent/permissions.js';
import type { Tool } from '../../agent/tools.js';
import type { ClaimedEvent } from '../../store/contract.js';

export interface ClaudeAgentSdkOptions {
  /** The agent's name (logs, dashboard). Default "claude-agent-sdk". */
  name?: string;
  /**
   * The Agent SDK's query options (model, systemPrompt, maxTurns,
   * maxBudgetUsd, mcpServers, disallowedTools, …), less those Vigil owns:
   * see VIGIL_OWNED.
   */
  options?: Options;
  /**
   * Vigil's policy, by Vigil name: built-in tools by theirs (`Bash`,
   * `Read`), MCP tools as `<server>.<tool>` (the SDK's
   * `mcp__<server>__<tool>`), patterns allowed (`github.*`). A tool nobody
   * names is denied; a built-in tool nobody names is not even offered.
   */
  permissions?: Permissions;
  /** How the run's events read as the prompt. Default: a chat message's text, otherwise source, key and payload as JSON. */
  prompt?: (events: readonly ClaimedEvent[]) => string;
  /** Vigil tools (defineTool, or the MCP adapter's), served to Claude Code in-process as the `vigil` MCP server. */
  tools?: readonly Tool[];
  /**
   * The child's working directory and home live under here, one folder per
   * inbox. Default: `<os tmpdir>/vigil-claude-agent-sdk`. The transcript
   * itself is kept in the inbox, so this may be lost at any time.
   */
  workDir?: string;
  /**
   * The transcript kept in the inbox grows with every turn (about 10 KB for
   * a turn with a tool call), and the inbox's session is bounded (the
   * store's maxPayloadBytes, 1 MiB by default). Past this size, once no
   * call waits for a person, the transcript is let go and the next run
   * starts a new conversation. Default 512 KiB.
   */
  maxTranscriptBytes?: number;
  /** The credential proxy's route to the Messages API (`<proxyUrl>/<route>`). Default "anthropic". */
  proxyRoute?: string;
  /**
   * Variables for the Claude Code child, given one by one with their values
   * (`{ PATH: '/opt/node/bin:/usr/bin:/bin' }`); they go in beside Vigil's
   * own, which they cannot replace, save PATH. Nothing of the service's
   * environment reaches the child otherwise.
   */
  childEnv?: Readonly<Record<string, string>>;
}

/** Options of the SDK's that Vigil sets itself; giving one is an error. */
const VIGIL_OWNED = [
  'canUseTool',
  'resume',
  'continue',
  'forkSession',
  'sessionId',
  'resumeSessionAt',
  'sessionStore',
  'persistSession',
  'env',
  'cwd',
  'abortController',
  'spawnClaudeCodeProcess',
  'allowDangerouslySkipPermissions',
  'permissionPromptToolName',
  'permissionPrompts',
  'tools',
  'allowedTools',
  'settingSources',
  'includePartialMessages',
] as const;

const WHY: Record<string, string> = {
  permissionMode: "Vigil runs Claude Code in 'default' mode: every call is decided by the permissions policy",
  tools: 'built-in tools are offered when the permissions policy names them',
  allowedTools: 'allow tools in the permissions policy',
  canUseTool: 'the permissions policy decides every call',
  'hooks.PreToolUse': 'the permissions policy decides every call in Vigil\'s own PreToolUse hook',
  env: 'Vigil builds the child\'s environment; give variables it should have in childEnv',
  cwd: 'the working directory is per inbox, under workDir',
};

export function checkSdkOptions(options: unknown): Options {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new VigilError('invalid_options', 'claudeAgentSdk: options must be the Agent SDK query options object');
  const given = options as Record<string, unknown>;
  const refuse = (key: string): never => {
    throw new VigilError('invalid_options', `claudeAgentSdk: options.${key} is set by Vigil and cannot be given${WHY[key] === undefined ? '' : ` (${WHY[key]})`}`);
  };
  for (const key of VIGIL_OWNED) if (given[key] !== undefined) refuse(key);
  if (given.permissionMode !== undefined && given.permissionMode !== 'default') refuse('permissionMode');
  const hooks = given.hooks as Record<string, unknown> | undefined;
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null)) throw new VigilError('invalid_options', 'claudeAgentSdk: options.hooks must be an object');
  if (hooks?.PreToolUse !== undefined) refuse('hooks.PreToolUse');
  for (const key of ['maxTurns', 'maxBudgetUsd'] as const) {
    const value = given[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (key === 'maxTurns' && !Number.isSafeInteger(value)))) {
      throw new VigilError('invalid_options', `claudeAgentSdk: options.${key} must be a positive ${key === 'maxTurns' ? 'integer' : 'number'}`);
    }
  }
  return options as Options;
}

/** The in-process MCP server Vigil's undotted tools are served on: the SDK names them `mcp__vigil__<tool>` (tool-names.ts). */
export const VIGIL_SERVER = 'vigil';

const ROUTE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function checkAdapterOptions(options: ClaudeAgentSdkOptions): { proxyRoute: string; childEnv: Record<string, string>; maxTranscriptBytes: number } {
  const maxTranscriptBytes = options.maxTranscriptBytes ?? 512 * 1024;
  if (typeof maxTranscriptBytes !== 'number' || !Number.isSafeInteger(maxTranscriptBytes) || maxTranscriptBytes < 1_000) {
    throw new VigilError('invalid_options', 'claudeAgentSdk: maxTranscriptBytes must be a whole number of bytes, at least 1000');
  }
  const proxyRoute = options.proxyRoute ?? 'anthropic';
  if (typeof proxyRoute !== 'string' || !ROUTE.test(proxyRoute)) throw new VigilError('invalid_options', 'claudeAgentSdk: proxyRoute must be the name of a credential proxy upstream, like "anthropic"');
  if (options.prompt !== undefined && typeof options.prompt !== 'function') throw new VigilError('invalid_options', 'claudeAgentSdk: prompt must be a function of the run\'s events');
  if (options.workDir !== undefined && (typeof options.workDir !== 'string' || options.workDir === '')) throw new VigilError('invalid_options', 'claudeAgentSdk: workDir must be a directory path');
  const childEnv: Record<string, string> = {};
  const given = options.childEnv ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new VigilError('invalid_options', 'claudeAgentSdk: childEnv must be an object of variable names and string values');
  for (const [name, value] of Object.entries(given)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || typeof value !== 'string') {
      throw new VigilError('invalid_options', `claudeAgentSdk: childEnv.${name} must be an environment variable name with a string value`);
    }
    childEnv[name] = value;
  }
  return { proxyRoute, childEnv, maxTranscriptBytes };
}
