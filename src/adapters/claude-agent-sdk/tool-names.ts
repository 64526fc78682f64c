/**
 * Claude Code calls an MCP tool `mcp__<server>__<tool>`; Vigil's policy,
 * approvals, decisions and dashboard use `<server>.<tool>`. Vigil's own
 * tools are served as the `vigil` server under their model names
 * (tool-names.ts in agent/: `github.create_issue` is shown as
 * `github__create_issue`), and map back to their own names, so a policy
 * written for toolAgent holds here too. Built-in tools keep their names
 * (`Bash`, `Read`).
 */
import { modelToolName } from '../../agent/tool-names.js';
import { VIGIL_SERVER } from './options.js';

export interface ToolNames {
  /** The Vigil name of a tool Claude Code called. */
  vigilName(sdkName: string): string;
  /** True for a Vigil tool served on the `vigil` server. */
  isVigilTool(sdkName: string): boolean;
}

export function toolNames(vigilTools: readonly string[]): ToolNames {
  const served = new Map(vigilTools.map((name) => [`mcp__${VIGIL_SERVER}__${modelToolName(name)}`, name]));
  return {
    vigilName(sdkName) {
      const own = served.get(sdkName);
      if (own !== undefined) return own;
      const mcp = /^mcp__(.+?)__(.+)$/.exec(sdkName);
      return mcp === null ? sdkName : `${mcp[1]}.${mcp[2]}`;
    },
    isVigilTool: (sdkName) => served.has(sdkName),
  };
}
