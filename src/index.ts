// The public surface of Vigil: named re-exports only, no driver imports.
export { VigilError, isVigilError, type VigilErrorCode } from './errors.js';
export { createFakeClock, systemClock, type Clock, type FakeClock } from './clock.js';
export { openStore } from './store/open-store.js';
export type * from './store/contract.js';
