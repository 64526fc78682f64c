// The public surface of Vigil: named re-exports only, no driver imports.
export { VigilError, isVigilError, type VigilErrorCode } from './errors.js';
export { createFakeClock, systemClock, type Clock, type FakeClock } from './clock.js';

// The engine: one contract, two stores.
export { openStore } from './store/open-store.js';
export type * from './store/contract.js';
export { MEMORY_LIMITS } from './store/agent-state.js';

// Agents and the runtime that runs them.
export { defineAgent, type Agent, type AgentContext, type AgentResult } from './agent/agent.js';
export { WorkerPool, type WorkerPoolOptions } from './runtime/worker-pool.js';
export { Dispatcher, type DispatcherOptions } from './runtime/dispatcher.js';
export { RunAbortedError, type AbortReason } from './runtime/run-abort.js';
export { RuntimeEvents, type RuntimeEventMap, type RuntimeEventName } from './runtime/runtime-events.js';

// Where messages go.
export { createChannels } from './channels/create-channels.js';
export type { Channel, OutgoingMessage } from './channels/channel.js';
