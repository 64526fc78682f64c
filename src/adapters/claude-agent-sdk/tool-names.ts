/**
 * Claude Code calls an MCP tool `mcp__<server>__<tool>`; Vigil's policy,
 * approvals, decisions and dashboard use `<server>.<tool>`. Vigil's own
 * tools are served the same way: a dotted one on a server of its first
 * part (`echo.say`, from mcpTools, is `mcp__echo__say`, as if Claude Code
 * ran that MCP server itself), the others on the `vigil` server (`refund`
 * is `mcp__vigil__refund`); each maps back to its own name, so a policy
 * written for toolAgent holds here too. Built-in tools keep their names
 * (`Bash`, `Read`).
 */
import { modelToolName } from '../../agent/tool-names.js';
import { VIGIL_SERVER } from './options.js';

export interface ToolNames {
  /** The Vigil name of a tool Claude Code called. */
  vigilName(sdkName: string): string;
  /** True for one of Vigil's tools (served in-process by the adapter). */
  isVigilTool(sdkName: string): boolean;
}

/** The in-process server a Vigil tool is served on, and its name there. */
export function servedAs(name: string): { server: string; tool: string } {
  const dot = name.indexOf('.');
  if (dot === -1) return { server: VIGIL_SERVER, tool: name };
  return { server: name.slice(0, dot), tool: modelToolName(name.slice(dot + 1)) };
}

export function toolNames(vigilTools: readonly string[]): ToolNames {
  const served = new Map(
    vigilTools.map((name) => {
      const { server, tool } = servedAs(name);
      return [`mcp__${server}__${tool}`, name];
    }),
  );
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
