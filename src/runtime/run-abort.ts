/**
 * Why a run's AbortSignal fired. An agent sees it as `ctx.signal.reason`;
 * the worker uses it to choose the outcome it records.
 */
export type AbortReason = 'timeout' | 'lease-lost' | 'shutdown';

export class RunAbortedError extends Error {
  constructor(
    readonly reason: AbortReason,
    message: string,
  ) {
    super(message);
    this.name = 'RunAbortedError';
  }
}

/** The reason a signal was aborted with, when it was one of ours. */
export function abortReason(signal: AbortSignal): AbortReason | null {
  return signal.aborted && signal.reason instanceof RunAbortedError ? signal.reason.reason : null;
}
