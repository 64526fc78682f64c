/**
 * vigil-agents/testing: write the failure scenarios your agent must survive.
 *
 *   throwawayStore()   a SQLite store in a temporary directory (or a fresh
 *                      PostgreSQL schema) with a fake clock
 *   crashingStore()    a worker that dies at a named point: the eight points of
 *                      the chaos harness, each on a real commit boundary
 *   runOnce()          one worker turn at one inbox, the runtime's own code path
 */
export { createFakeClock, type Clock, type FakeClock } from '../clock.js';
export { throwawayStore, THROWAWAY_START, type ThrowawayStore, type ThrowawayStoreOptions } from './throwaway-store.js';
export { crashingStore, type CrashingStore, type CrashOptions } from './crashing-store.js';
export { SimulatedCrash, isSimulatedCrash, CRASH_POINTS, type CrashPoint, type CrashSite } from './simulated-crash.js';
export { runOnce, type RunOnceOptions, type TurnResult } from './run-once.js';
