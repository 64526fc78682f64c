/**
 * The Claude Code child's environment, built whole (the SDK's `env`
 * replaces the child's environment; it is never merged with the
 * service's): PATH, a home and config folder of the inbox's own, Claude
 * Code's switch for non-essential traffic (telemetry, update checks), and
 * the Messages API at the credential proxy with a placeholder key the proxy
 * replaces. PATH is a fixed default, not the service's (which would tell
 * where the service's own tools live), unless the agent gives one. The service's secrets, the model key among them, never reach
 * the child, so neither the agent nor a prompt-injected Bash can read them.
 */
import { join } from 'node:path';

/** What the child sends as its key; the proxy drops it and sets the real one. */
export const PLACEHOLDER_KEY = 'vigil-proxy-adds-the-key';

export interface ChildDirs {
  /** The working directory: Claude Code keys its sessions by it, so it is fixed per inbox. */
  cwd: string;
  home: string;
  configDir: string;
}

export function childDirs(workDir: string, inboxKey: string): ChildDirs {
  const root = join(workDir, inboxKey);
  return { cwd: join(root, 'work'), home: join(root, 'home'), configDir: join(root, 'home', '.claude') };
}

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export function childEnv(dirs: ChildDirs, modelBaseUrl: string, given: Readonly<Record<string, string>>): Record<string, string> {
  return {
    ...given,
    PATH: given.PATH ?? DEFAULT_PATH,
    HOME: dirs.home,
    CLAUDE_CONFIG_DIR: dirs.configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ANTHROPIC_BASE_URL: modelBaseUrl,
    ANTHROPIC_API_KEY: PLACEHOLDER_KEY,
    CLAUDE_AGENT_SDK_CLIENT_APP: 'vigil-agents',
  };
}
