/**
 * The store contract, part: a run's permission decisions, one per tool
 * call. The agent's toolbox makes them (src/agent/tools.ts); the run's
 * event (`run:finished`, ../../events.ts) carries them to the log and the
 * metrics, and the tool loop's session keeps them. Here, below both, so
 * that the event map needs nothing from the agent's code.
 */

/** One permission decision, recorded with the run (runtime event, log, and the tool loop's session). */
export interface DecisionRecord {
  tool: string;
  decision: 'allow' | 'deny' | 'invalid' | 'ask' | 'approved' | 'declined' | 'expired';
  reason?: string;
  approvalId?: string;
  at: number;
}
