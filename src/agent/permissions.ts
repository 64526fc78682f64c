/**
 * A permission decision on every tool call. Unattended agents default to
 * no: a tool nobody listed is denied, never asked about (a prompt-injected
 * model must not be able to page a human into approving a new capability).
 *
 * A policy names tools exactly (`refund`) or by pattern (`github.*`, where
 * `*` stands for any run of characters): a family of tools from one MCP
 * server gets one line. An exact name beats every pattern; of two patterns
 * the more specific (more characters besides `*`) wins; and of two equally
 * specific ones the stricter (deny, then ask, then allow), so adding a
 * pattern can never loosen a tool another line already holds tighter.
 */
import { VigilError } from '../errors.js';
import { BOUNDS, validateRemindAt } from '../store/index.js';

/**
 * `ask.remindAt`: when to remind the person, as a share of expiresInMs
 * (0 < remindAt < 1); null: never; absent: the service's default
 * (config `approvals.remindAt`, else 0.75).
 */
export type Permission = 'allow' | 'deny' | { ask: { expiresInMs: number; remindAt?: number | null } };

/** Per tool name or name pattern. */
export type Permissions = Readonly<Record<string, Permission>>;

export type Decision = { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'ask'; expiresInMs: number; remindAt?: number | null };

export function decide(permissions: Permissions, tool: string, known: boolean): Decision {
  if (!known) return { kind: 'deny', reason: `there is no tool named ${JSON.stringify(tool)}` };
  const permission = permissionFor(permissions, tool);
  if (permission === 'allow') return { kind: 'allow' };
  if (permission === undefined) return { kind: 'deny', reason: `${tool} is not permitted for this agent` };
  if (permission === 'deny') return { kind: 'deny', reason: `${tool} is denied by policy` };
  const { expiresInMs, remindAt } = permission.ask;
  return remindAt === undefined ? { kind: 'ask', expiresInMs } : { kind: 'ask', expiresInMs, remindAt };
}

/** The line of the policy that holds `tool`: its exact name, else the most specific matching pattern. */
export function permissionFor(permissions: Permissions, tool: string): Permission | undefined {
  if (Object.hasOwn(permissions, tool)) return permissions[tool];
  let best: { specificity: number; permission: Permission } | undefined;
  for (const [key, permission] of Object.entries(permissions)) {
    if (!isPattern(key) || !patternMatches(key, tool)) continue;
    const specificity = key.replaceAll('*', '').length;
    if (best === undefined || specificity > best.specificity || (specificity === best.specificity && strictness(permission) > strictness(best.permission))) {
      best = { specificity, permission };
    }
  }
  return best?.permission;
}

export function isPattern(key: string): boolean {
  return key.includes('*');
}

export function patternMatches(pattern: string, tool: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!tool.startsWith(first) || tool.length < first.length + last.length || !tool.endsWith(last)) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = tool.indexOf(middle, at);
    if (found === -1 || found + middle.length > tool.length - last.length) return false;
    at = found + middle.length;
  }
  return true;
}

function strictness(permission: Permission): number {
  return permission === 'deny' ? 2 : permission === 'allow' ? 0 : 1;
}

export interface PolicyScope {
  /**
   * True when the agent's tools are not all known up front (the Claude Agent
   * SDK's built-in and MCP tools): exact names are then not checked against
   * `toolNames`. Patterns are never checked against them: a family may
   * gain tools later (an MCP server's next version).
   */
  open?: boolean;
}

const KEY = /^[A-Za-z0-9_.*-]{1,200}$/;

/** Checked when an agent is defined, so a typo fails at startup rather than on a bad night. */
export function validatePermissions(permissions: unknown, toolNames: readonly string[], scope: PolicyScope = {}): Permissions {
  if (permissions === undefined) return {};
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) {
    throw new VigilError('invalid_options', 'permissions must be an object of tool name or pattern: "allow" | "deny" | { ask: { expiresInMs } }');
  }
  for (const [tool, permission] of Object.entries(permissions)) {
    if (!KEY.test(tool)) throw new VigilError('invalid_options', `permissions names ${JSON.stringify(tool)}: a tool name or pattern is letters, digits, "_", "-", "." and "*"`);
    if (!isPattern(tool) && scope.open !== true && !toolNames.includes(tool)) {
      throw new VigilError('invalid_options', `permissions names ${JSON.stringify(tool)}, which is not one of the tools (${toolNames.join(', ') || 'none'})`);
    }
    if (permission === 'allow' || permission === 'deny') continue;
    const expiresInMs = (permission as { ask?: { expiresInMs?: unknown } } | null)?.ask?.expiresInMs;
    // The approval's own bound (store bounds.ts), checked here too so a bad permission stops the start, not a run.
    if (typeof expiresInMs !== 'number' || !Number.isSafeInteger(expiresInMs) || expiresInMs <= 0 || expiresInMs > BOUNDS.maxDurationMs) {
      throw new VigilError('invalid_options', `permissions.${tool} must be "allow", "deny" or { ask: { expiresInMs: <ms from 1 to ${BOUNDS.maxDurationMs}> } }`);
    }
    checkRemindAt(tool, (permission as { ask: { remindAt?: unknown } }).ask.remindAt);
  }
  return permissions as Permissions;
}

/** The store's own check (engine/validate/approval.ts), said as this tool's permission so the start names the line to fix. */
function checkRemindAt(tool: string, remindAt: unknown): void {
  try {
    validateRemindAt(remindAt);
  } catch {
    throw new VigilError('invalid_options', `permissions.${tool}.ask.remindAt must be a share of the approval's life between 0 and 1 (exclusive), or null for no reminder; got ${JSON.stringify(remindAt) ?? String(remindAt)}`);
  }
}
