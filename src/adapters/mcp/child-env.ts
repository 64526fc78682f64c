/**
 * The environment of a stdio server's child: the config's `env` and a
 * minimal PATH, nothing else. The service's environment holds its secrets
 * (store URL, channel and webhook secrets, model keys); an MCP server is
 * third-party code and gets none of them.
 *
 * The MCP SDK's stdio transport merges its own defaults (HOME, LOGNAME,
 * PATH, SHELL, TERM, USER from the parent) under what it is given. Node's
 * spawn leaves out a variable whose value is undefined, so each of those is
 * passed as undefined unless the config sets it; test/adapters/mcp checks
 * the child really sees nothing else.
 */
import { dirname } from 'node:path';

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The parent's variables the SDK would pass on (its DEFAULT_INHERITED_ENV_VARS, POSIX and Windows). */
const SDK_INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES'];

/**
 * The config's env, plus PATH (when the config gives none): the system's
 * directories and the running Node's, so `command: 'node'` or `npx` works
 * wherever Node is installed.
 */
export function childEnv(configured: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string | undefined> = Object.fromEntries(SDK_INHERITED.map((name) => [name, undefined]));
  Object.assign(env, { PATH: `${dirname(process.execPath)}:${SYSTEM_PATH}` }, configured);
  // Typed as the SDK's Record<string, string>; the undefined ones are dropped by spawn.
  return env as Record<string, string>;
}
