/**
 * The wake-up machinery the worker pool and the dispatcher share: one pass
 * function, run again when something might have changed. Three things call
 * for a pass: a hint (`wake()`, from `store.subscribe` or a caller), the ONE
 * timer the previous pass asked for (armed from `store.nextWake()`), and a
 * slow safety poll. None of them is the truth: a pass always asks the store
 * what is due, so a lost hint or a late timer costs latency, never work.
 *
 * Passes never overlap; wakes during a pass coalesce into one more pass.
 * The loop listens to the store's hints of one kind (`work` for the pool,
 * `outbox` for the dispatcher) from start to stop.
 */
import type { Store, WakeKind } from '../store/contract.js';

/** What a pass returns: how long until the next pass is needed, or null for "only on a hint or the poll". */
export type PassResult = number | null;

export interface WakeLoopOptions {
  pass: () => Promise<PassResult>;
  pollIntervalMs: number;
  onError: (error: unknown) => void;
  /** The store whose hints of `kind` wake the loop, each through `onHint` (which calls wake() itself). */
  hints: { store: Pick<Store, 'subscribe'>; kind: WakeKind; onHint: (inboxId: string) => void };
}

/** setTimeout takes a signed 32-bit delay; anything longer fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class WakeLoop {
  private timer: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(private readonly options: WakeLoopOptions) {}

  /** Subscribes to the hints, then makes the first pass. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const { store, kind, onHint } = this.options.hints;
    this.unsubscribe = await store.subscribe((inboxId, hinted) => {
      if (hinted === kind) onHint(inboxId);
    });
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

  /** No more passes or hints; resolves when the pass in progress (if any) is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    this.clearTimer();
    await this.unsubscribe?.().catch(() => undefined);
    this.unsubscribe = null;
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

/**
 * What the worker pool and the dispatcher share around their loop: it is
 * started once, and woken by a hint or a caller; a hint about an inbox
 * first ends that inbox's own wait (`forget`: the pool's cool-down, the
 * dispatcher's back-off), since it may have something to do now.
 */
export abstract class LoopOwner {
  protected state: 'new' | 'started' | 'stopping' | 'stopped' = 'new';
  /** @internal The loop this starts and wakes. */
  protected abstract readonly loop: WakeLoop;

  /** Ends `inboxId`'s wait. */
  protected abstract forget(inboxId: string): void;

  /** Subscribes to the store's hints and makes the first pass; a second call does nothing. */
  async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'started';
    await this.loop.start();
  }

  /** Asks for a pass now rather than at the next timer; with `inboxId`, that inbox's wait ends first. */
  wake(inboxId?: string): void {
    if (inboxId !== undefined) this.forget(inboxId);
    this.loop.wake();
  }
}
