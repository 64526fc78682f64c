/**
 * One operation, one round trip: the hot operations (ingest, acquire,
 * release, claimBatch, finish) are server-side functions (functions/, one
 * file per rule), each a whole transaction in one statement.
 * The TypeScript side validates the input, then calls its function through
 * a named (prepared once per connection) statement.
 *
 * Round trips per operation, where a transaction of statements would cross
 * the network for BEGIN, the lock, each rule's statement, the work refresh
 * and COMMIT: ingest 1 (two statements, pipelined: see callThenWake),
 * acquire 1, release 1, claimBatch 1, finish 2 (see callThenCommit).
 */
import type { ResolvedOptions } from '../options.js';

/** A statement pg prepares once per connection under `name`, then only binds and runs. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** What an operation needs from its store. */
export interface CallTarget {
  readonly options: ResolvedOptions;
  readonly channel: string;
  /** The app clock's reading when the call is made, or null when the database's clock decides (R13). */
  appNow(): number | null;
  /** Runs one statement on a pooled connection: its own transaction, one round trip. */
  call<T extends object>(statement: Statement, params: unknown[]): Promise<T[]>;
  /**
   * The same between an explicit BEGIN and COMMIT: BEGIN goes out with the
   * statement (pipelined), and COMMIT only once the statement's answer has
   * come back, so a connection lost while the statement runs never commits
   * it. Two round trips. (A one-statement transaction commits when the
   * statement ends, whether or not the client is still there to hear of it.)
   * `wake` sends `SELECT vigil_wake(channel)` with the COMMIT, in its round
   * trip.
   */
  callThenCommit<T extends object>(statement: Statement, params: unknown[], options?: { wake?: boolean }): Promise<T[]>;
  /**
   * The same as `call`, with `SELECT vigil_wake(channel)` pipelined behind
   * it in the same round trip: the LISTEN/NOTIFY hint the statement left
   * (functions/ingest.sql), sent as its own transaction once the
   * statement's has committed. A lost hint does not fail the call.
   */
  callThenWake<T extends object>(statement: Statement, params: unknown[]): Promise<T[]>;
  /**
   * A run step (run-step.ts): `alone` is how it runs by itself (`call` or
   * `callThenCommit`); while other inboxes' steps wait at the same moment,
   * it runs with them in one transaction instead (step-group.ts).
   */
  runStep<T extends object>(inboxId: string, statement: Statement, params: unknown[], options: { wake: boolean; alone: () => Promise<T[]> }): Promise<T[]>;
}

/**
 * The options the work table's rules read ($max_attempts, backoff base and
 * max, outbox gap), as the last four parameters of every function that
 * refreshes it.
 */
export function workParams(options: ResolvedOptions): [number, number, number, number] {
  return [options.maxAttempts, options.retryBackoff.baseMs, options.retryBackoff.maxMs, options.outboxGapMs];
}
