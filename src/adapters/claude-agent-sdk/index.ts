/**
 * `vigil-agents/claude-agent-sdk`: agents written with the Claude Agent SDK,
 * hosted by Vigil (durable approvals, the transcript in the inbox, the
 * model key behind the credential proxy). The SDK is an optional peer
 * dependency, loaded when a run starts.
 */
export { claudeAgentSdk } from './agent.js';
export type { ClaudeAgentSdkOptions } from './options.js';
export type { SdkToolAction } from './policy-hook.js';
export type { SdkSession, WaitingCall } from './session.js';
