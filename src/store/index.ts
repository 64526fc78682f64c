/**
 * The store's door for the rest of src/: the contract, store URLs and the
 * backends behind them, the store's defaults, and the engine's input checks
 * that other layers apply before they hand something to the store (a memory
 * key checked when the agent sets it, not at the run's finish). Outside
 * src/store/, only this file and the contract are imported
 * (test/architecture checks it); store/engine/ and the backend folders stay
 * the store's own.
 */
export type * from './contract.js';
export { DEFAULT_STORE_URL, localStoreDir, parseStoreUrl, redactStoreUrl, resolveStoreUrl, sqliteStoreUrl, storeUrlProblem, type StoreLocation } from './store-url.js';
export { migrateStore, openStore, throwawayPlace, type MigrateReport, type ThrowawayPlace } from './backends.js';
export { LIMIT_DEFAULTS, STORE_DEFAULTS } from './options.js';
export { effectiveLimits } from './engine/quota.js';
export { periodStart } from './engine/usage.js';
export { localDay, quietState, type QuietState } from './pacing.js';
export { APPROVAL_REMINDER_SOURCE, type ApprovalReminderPayload } from './approval-payload.js';
export {
  BOUNDS,
  CHANNEL_NAME_PATTERN,
  isReadableInstant,
  INBOX_ID_PATTERN,
  MEMORY_LIMITS,
  MAX_LIMIT,
  MAX_BUDGET_USD,
  refuseOperatorOnly,
  storableText,
  validateApprovalRequest,
  validateRemindAt,
  validateInboxId,
  validateMemoryKey,
  validateMemoryValue,
  checkUsage,
  type CheckedApproval,
} from './engine/validate/index.js';
// The ledger of side effects: the toolbox keys a call's input as the store hashes it.
export { stableJson } from './engine/validate/index.js';
