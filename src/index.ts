// The public surface of Vigil: named re-exports only, no driver imports.
export { QuotaExceededError, VigilError, isVigilError, type VigilErrorCode } from './errors.js';
export { createFakeClock, systemClock, type Clock, type FakeClock } from './clock.js';

// The engine: one contract, two stores.
export type * from './store/contract.js';
export { BOUNDS, MEMORY_LIMITS, openStore } from './store/index.js';

// Agents and the runtime that runs them.
export { defineAgent, TerminalError, type Agent, type AgentContext, type AgentDefinition, type AgentResult, type InboxRouter, type ScreenVerdict } from './agent/agent.js';
export { defineTool, type Tool, type ToolBox, type ToolCall, type ToolOutcome, type ToolAction } from './agent/tools.js';
export type { Permission, Permissions } from './agent/permissions.js';
export type { AgentMemory } from './agent/memory.js';
export type { AgentSession } from './agent/session.js';
export { toolAgent, type ToolAgentOptions, type ToolLoopSession, type Waiting as ToolLoopWaiting } from './agent/tool-loop.js';
export type { ApprovalLink } from './agent/approval-summary.js';
export { ModelError, type Model, type ModelReply, type ToolSpec, type StopReason } from './agent/model.js';
export type { Turn, UserTurn, AssistantTurn, TextBlock, ToolUseBlock, ToolResultBlock } from './agent/conversation.js';
export { claudeAgent, claudeModel, DEFAULT_CLAUDE_MODEL, type ClaudeAgentOptions, type ClaudeModelOptions } from './agent/claude/index.js';
export { createProxyFetch, type ProxyFetch } from './agent/proxy-fetch.js';
export { WorkerPool, type WorkerPoolOptions, type StopOptions } from './runtime/worker-pool.js';
export { PRICES, PRICES_AS_OF, priceOf, type ModelPrice, type PriceTable } from './agent/prices.js';
export { Dispatcher, type DispatcherOptions, type Delivery } from './runtime/dispatcher.js';
export { RunAbortedError, type AbortReason } from './runtime/run-abort.js';
export { RuntimeEvents, type RuntimeEventMap, type RuntimeEventName, type DeadEvent } from './events.js';

// Where messages go.
export { createChannels, type ChannelDeps, type Channels, type ChannelSpec } from './channels/create-channels.js';
export { delivered, retryLater, rejected, type Audience, type Channel, type DeliveryResult, type OutgoingMessage } from './channels/channel.js';
export type { WebhookChannelOptions } from './channels/webhook.js';
export type { SlackChannelOptions } from './channels/slack.js';
export type { EmailChannelOptions } from './channels/email.js';
