/**
 * The permissions a server's tool annotations suggest, for servers the
 * config marks `trusted` only. The MCP spec says annotations are hints that
 * must not drive decisions for untrusted servers: anyone can write
 * `readOnlyHint: true` on `delete_everything`. So an untrusted server
 * contributes nothing, and its tools are denied until the user's policy
 * names them (`'github.*': { ask: … }`).
 *
 * For a trusted server: `readOnlyHint` → allow; anything else → ask, with
 * the default expiry (server-config.ts). `destructiveHint` asks too; it is
 * never a reason to allow.
 */
import { isPattern, patternMatches, type Permission, type Permissions } from '../../agent/permissions.js';

export interface ListedTool {
  vigilName: string;
  trusted: boolean;
  annotations?: { readOnlyHint?: boolean } | undefined;
}

export function defaultPermissions(tools: readonly ListedTool[], askExpiresInMs: number): Record<string, Permission> {
  const permissions: Record<string, Permission> = {};
  for (const tool of tools) {
    if (!tool.trusted) continue;
    permissions[tool.vigilName] = tool.annotations?.readOnlyHint === true ? 'allow' : { ask: { expiresInMs: askExpiresInMs } };
  }
  return permissions;
}

/**
 * The defaults with the user's lines on top, where a user's pattern also
 * overrides a default's exact name. Spreading (`{ ...mcp.permissions, x }`)
 * cannot do that: an exact name beats every pattern (permissions.ts), so
 * `'github.delete_*': 'deny'` would lose to the default `github.delete_repo`.
 * Here every default that a user's line covers is left out.
 */
export function withPolicy(defaults: Permissions, policy: Permissions): Permissions {
  const kept = Object.entries(defaults).filter(([tool]) => !Object.keys(policy).some((line) => covers(line, tool)));
  return { ...Object.fromEntries(kept), ...policy };
}

function covers(line: string, tool: string): boolean {
  return isPattern(line) ? patternMatches(line, tool) : line === tool;
}
