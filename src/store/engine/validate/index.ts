/** The engine's input rules, one module per rule; each throws a VigilError before anything is written. */
export * from './text.js';
export * from './bounds.js';
export * from './json.js';
export * from './ids.js';
export * from './event.js';
export * from './approval.js';
export * from './agent-state.js';
export * from './outcome.js';
export * from './timer.js';
export * from './query.js';
export * from './operator.js';
export * from './settings.js';
export * from './limits.js';
export * from './session-end.js';
export * from './inbox-record.js';
export * from './usage.js';
export * from './budget.js';
