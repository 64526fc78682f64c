/**
 * The wake-up machinery the worker pool and the dispatcher share: one pass
 * function, run again when something might have changed. Three things call
 * for a pass: a hint (`wake()`, from `store.subscribe` or a caller), the ONE
 * timer the previous pass asked for (armed from `store.nextWake()`), and a
 * slow safety poll. None of them is the truth: a pass always asks the store
 * what is due, so a lost hint or a late timer costs latency, never work.
 *
 * Passes never overlap; wakes during a pass coalesce into one more pass.
 */

/** What a pass returns: how long until the next pass is needed, or null for "only on a hint or the poll". */
export type PassResult = number | null;

export interface WakeLoopOptions {
  pass: () => Promise<PassResult>;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
}

/** setTimeout takes a signed 32-bit delay; anything longer fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class WakeLoop {
  private timer: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly options: WakeLoopOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.poll = setInterval(() => this.wake(), Math.min(this.options.pollIntervalMs, MAX_DELAY_MS));
    this.wake();
  }

  /** Asks for a pass soon; many calls before it starts make one pass. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  /** No more passes; resolves when the one in progress (if any) is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    this.clearTimer();
    await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      // Yield first, so a burst of hints in one tick makes one pass, not one per hint.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.stopped) return;
      let delay: PassResult;
      try {
        delay = await this.options.pass();
      } catch (error) {
        this.options.onError(error);
        // The store failed (busy, a lost connection): the poll would retry, but
        // a dead database should not go unnoticed for a whole poll interval.
        delay = Math.min(this.options.pollIntervalMs, 1_000);
      }
      if (this.stopped) return;
      this.arm(delay);
    } while (this.again);
  }

  private arm(delay: PassResult): void {
    this.clearTimer();
    if (delay === null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.wake();
      },
      Math.min(Math.max(0, Math.ceil(delay)), MAX_DELAY_MS),
    );
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
