/**
 * A permission decision on every tool call. Unattended agents default to
 * no: a tool nobody listed is denied, never asked about (a prompt-injected
 * model must not be able to page a human into approving a new capability).
 */
import { VigilError } from '../errors.js';
import { BOUNDS } from '../store/index.js';

export type Permission = 'allow' | 'deny' | { ask: { expiresInMs: number } };

/** Per tool name. */
export type Permissions = Readonly<Record<string, Permission>>;

export type Decision = { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'ask'; expiresInMs: number };

export function decide(permissions: Permissions, tool: string, known: boolean): Decision {
  if (!known) return { kind: 'deny', reason: `there is no tool named ${JSON.stringify(tool)}` };
  const permission = Object.hasOwn(permissions, tool) ? permissions[tool] : undefined;
  if (permission === 'allow') return { kind: 'allow' };
  if (permission === undefined) return { kind: 'deny', reason: `${tool} is not permitted for this agent` };
  if (permission === 'deny') return { kind: 'deny', reason: `${tool} is denied by policy` };
  return { kind: 'ask', expiresInMs: permission.ask.expiresInMs };
}

/** Checked when an agent is defined, so a typo fails at startup rather than on a bad night. */
export function validatePermissions(permissions: unknown, toolNames: readonly string[]): Permissions {
  if (permissions === undefined) return {};
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) {
    throw new VigilError('invalid_options', 'permissions must be an object of tool name: "allow" | "deny" | { ask: { expiresInMs } }');
  }
  for (const [tool, permission] of Object.entries(permissions)) {
    if (!toolNames.includes(tool)) throw new VigilError('invalid_options', `permissions names ${JSON.stringify(tool)}, which is not one of the tools (${toolNames.join(', ') || 'none'})`);
    if (permission === 'allow' || permission === 'deny') continue;
    const expiresInMs = (permission as { ask?: { expiresInMs?: unknown } } | null)?.ask?.expiresInMs;
    // The approval's own bound (store bounds.ts), checked here too so a bad permission stops the start, not a run.
    if (typeof expiresInMs !== 'number' || !Number.isSafeInteger(expiresInMs) || expiresInMs <= 0 || expiresInMs > BOUNDS.maxDurationMs) {
      throw new VigilError('invalid_options', `permissions.${tool} must be "allow", "deny" or { ask: { expiresInMs: <ms from 1 to ${BOUNDS.maxDurationMs}> } }`);
    }
  }
  return permissions as Permissions;
}
