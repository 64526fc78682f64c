/**
 * The dispatcher: delivers each inbox's outbox (R9) to every channel.
 *
 * The store does the pacing and keeps the messages: `inbox.dispatch(send)`
 * reserves what may go now and calls `send`; when `send` throws, the
 * messages stay held and the gap is given back. So a channel that is down
 * loses nothing; this loop only decides *when* to try that inbox again
 * (exponential backoff, per inbox, in memory: a restart simply tries at
 * once). It finds inboxes through `store.dispatchableInboxes`, woken by the
 * store's 'outbox' hints (a run queued messages, an operator expedited
 * them: on PostgreSQL from any machine), the one timer armed from
 * `nextWake().sendAt`, and a safety poll.
 *
 * Every channel send gets a deadline well under the store's leaseTtlMs:
 * that is how long the store reserves a batch, and a send still running
 * when the reservation lapses would be repeated by another dispatcher.
 */
import { settlesWithin } from './settles-within.js';
import { performance } from 'node:perf_hooks';
import { batchId, delivered, uncertain, type Channel, type DeliveryResult, type OutgoingMessage } from '../channels/channel.js';
import { VigilError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { DispatchReport, HeldMessage, RetryBackoff, SendContext, Store } from '../store/contract.js';
import { RUNTIME_DEFAULTS } from './defaults.js';
import { describeError } from './call-agent.js';
import { leaseTtlOf } from './lease-ttl.js';
import type { RuntimeEvents } from '../events.js';
import { LoopOwner, WakeLoop, type PassResult } from './wake-loop.js';

export interface DispatcherOptions {
  store: Store;
  /** Every batch goes to all of them. The dispatcher owns them from here: stop() closes them. */
  channels: Channel[];
  /** Where deliveries are reported (outbox:sent, channel:failed, …); default the store's own (Store.events). */
  events?: RuntimeEvents;
  /** For what goes wrong around the deliveries (the store failing); what happens in them is an event. */
  logger?: Logger;
  /** The safety poll (default 5 s). */
  pollIntervalMs?: number;
  /** Backoff after a failed delivery, per inbox (default 1 s doubling to 5 min). */
  retry?: RetryBackoff;
  /** Read from the store (Store.leaseTtlMs): a batch stays reserved that long. If given, it must be the store's. */
  leaseTtlMs?: number;
  /** Deadline for one channel send (default leaseTtlMs / 4). */
  sendTimeoutMs?: number;
  /** Inboxes dispatched at once (default 4). */
  concurrency?: number;
  /**
   * `at-least-once` (default): a batch is recorded as sent after every
   * channel took it; a crash or a failed channel sends it again (the same
   * batch id, to the channels that did not take it). `at-most-once`: it is
   * recorded first (R9's atMostOnce), so a crash or a failed channel loses it
   * instead: for messages where a second copy is worse than none.
   */
  delivery?: Delivery;
}

export type Delivery = 'at-least-once' | 'at-most-once';

interface Backoff {
  failures: number;
  /** performance.now() at which the inbox may be tried again. */
  retryAt: number;
}

class ChannelsFailed extends Error {
  constructor(
    readonly failures: { channel: string; error: string }[],
    readonly messages: number,
    /** The longest Retry-After a channel asked for, if any. */
    readonly retryAfterMs: number | null,
  ) {
    super(failures.map((f) => `${f.channel}: ${f.error}`).join('; '));
    this.name = 'ChannelsFailed';
  }
}

/** What one channel did with its part of a batch. */
type ChannelOutcome =
  | { status: 'delivered'; ids: number[] }
  | { status: 'skipped'; ids: number[] }
  | { status: 'retry'; reason: string; retryAfterMs?: number; ids: number[] }
  | { status: 'rejected' | 'undeliverable' | 'uncertain'; reason: string; ids: number[] };

const MAX_LIMIT = 1_000;

export class Dispatcher extends LoopOwner {
  private readonly store: Store;
  private readonly channels: Channel[];
  private readonly events: RuntimeEvents;
  private readonly logger: Logger | undefined;
  private readonly settings: DispatcherSettings;
  /** @internal The loop this starts and wakes. */
  protected readonly loop: WakeLoop;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly backoff = new Map<string, Backoff>();
  private readonly stopSignal = new AbortController();
  private stopping: Promise<void> | null = null;

  constructor(options: DispatcherOptions) {
    super();
    if (!Array.isArray(options.channels) || options.channels.length === 0) {
      throw new VigilError('invalid_options', 'the dispatcher needs at least one channel');
    }
    const names = new Set(options.channels.map((c) => c.name));
    if (names.size !== options.channels.length) throw new VigilError('invalid_options', 'channel names must be unique');
    this.store = options.store;
    this.channels = options.channels;
    this.events = options.events ?? options.store.events;
    this.logger = options.logger;
    this.settings = dispatcherSettings(options);
    this.loop = new WakeLoop({
      pass: () => this.pass(),
      pollIntervalMs: this.settings.pollIntervalMs,
      onError: (error) => this.logger?.error({ err: error }, 'dispatcher: looking for outboxes failed'),
      // Only outbox hints: work hints announce events, timers and approvals,
      // none of which fills an outbox, so every ingest would cost a pass for nothing.
      hints: { store: this.store, kind: 'outbox', onHint: (inboxId) => this.wake(inboxId) },
    });
  }

  /** A hint (or a caller who just queued an urgent message) for an inbox skips its back-off after a failed send. */
  protected forget(inboxId: string): void {
    this.backoff.delete(inboxId);
  }

  /**
   * Stops looking, then, within `graceMs` (default 5 s): sends what is due
   * now (the replies of runs that finished just before, whose wake-up may
   * not have had its pass yet) and lets the sends in flight end. Sends still
   * going at the deadline are aborted (their messages stay held for the next
   * start). Closes the channels.
   */
  stop({ graceMs = RUNTIME_DEFAULTS.dispatcherGraceMs }: { graceMs?: number } = {}): Promise<void> {
    this.stopping ??= this.drain(graceMs);
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private async drain(graceMs: number): Promise<void> {
    const wasStarted = this.state === 'started';
    this.state = 'stopping';
    await this.loop.stop();
    const deadline = performance.now() + graceMs;
    if (wasStarted) await this.sendWhatIsDue(deadline);
    const sends = [...this.inFlight.values()];
    if (!(await settlesWithin(sends, Math.max(0, deadline - performance.now())))) this.stopSignal.abort(new Error('the dispatcher is stopping'));
    await Promise.allSettled(sends);
    await Promise.allSettled(this.channels.map(async (channel) => channel.close?.()));
  }

  /**
   * The last passes, until nothing due is left to start or the deadline: a
   * worker pool stopping in this process has just finished its last runs,
   * and their replies would otherwise wait for the next start.
   */
  private async sendWhatIsDue(deadline: number): Promise<void> {
    // Each inbox once: one that is still listed after its dispatch (another
    // process holds its batch) must not be retried in a loop until the deadline.
    const tried = new Set<string>();
    try {
      while (performance.now() < deadline && (await this.startDue(tried)) > 0) {
        await settlesWithin([...this.inFlight.values()], deadline - performance.now());
      }
    } catch (error) {
      // The store failed: what is held stays held for the next start.
      this.logger?.error({ err: error }, 'dispatcher: the last look for due messages failed');
    }
  }

  private async pass(): Promise<PassResult> {
    if (this.state !== 'started') return null;
    const now = performance.now();
    const started = await this.startDue();
    const { sendAt, now: storeNow } = await this.store.nextWake();
    let retryIn: number | null = null;
    for (const { retryAt } of this.backoff.values()) retryIn = retryIn === null ? retryAt - now : Math.min(retryIn, retryAt - now);
    if (retryIn !== null) retryIn = Math.max(0, retryIn);
    if (sendAt === null) return retryIn;
    // Due now yet nothing started: it is in flight (re-wakes on completion) or backing off,
    // and nextWake shows only the earliest inbox, which may hide a later one: check again soon.
    const delay = sendAt > storeNow ? sendAt - storeNow : started > 0 ? this.settings.recheckMs : Math.min(this.settings.recheckMs, retryIn ?? this.settings.recheckMs);
    return retryIn === null ? delay : Math.min(delay, retryIn);
  }

  /**
   * Starts a dispatch for each due inbox not in flight, backing off or in
   * `tried` (which it adds to), up to the concurrency; how many it started.
   */
  private async startDue(tried?: Set<string>): Promise<number> {
    const now = performance.now();
    let started = 0;
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const limit = Math.min(MAX_LIMIT, free + this.inFlight.size + this.backoff.size + (tried?.size ?? 0));
    for (const inboxId of await this.store.dispatchableInboxes({ limit })) {
      if (this.inFlight.size >= this.settings.concurrency) break;
      const waiting = this.backoff.get(inboxId);
      if (this.inFlight.has(inboxId) || (waiting !== undefined && waiting.retryAt > now) || tried?.has(inboxId) === true) continue;
      tried?.add(inboxId);
      this.begin(inboxId);
      started += 1;
    }
    return started;
  }

  private begin(inboxId: string): void {
    const done = this.dispatchInbox(inboxId).finally(() => {
      this.inFlight.delete(inboxId);
      this.loop.wake();
    });
    this.inFlight.set(inboxId, done);
  }

  private async dispatchInbox(inboxId: string): Promise<void> {
    const inbox = this.store.inbox(inboxId);
    try {
      const count = await inbox.dispatch((_body, messages, context) => this.deliver(inboxId, messages, context), { atMostOnce: this.settings.atMostOnce });
      this.backoff.delete(inboxId);
      if (count > 0) this.events.emit('outbox:sent', { inboxId, count, channels: this.channels.map((c) => c.name) });
    } catch (error) {
      this.failed(inboxId, error);
    }
  }

  /**
   * The SendFn: every channel not yet done with this exact batch (the store
   * records which are, `context.done`) gets the messages meant for it (all,
   * or a redriven copy's one channel), addressed to the inbox's person
   * there. A channel that needs an address the inbox has not got is not sent
   * to at all: undeliverable. Channels that refuse for good, or cannot be
   * reached, are reported with the batch (recorded, redrivable); one that
   * asks to retry holds the batch for everyone left, unless delivery is at
   * most once, where it is lost for that channel. One that cannot know
   * whether the batch landed is retried (at least once: the same batch id,
   * which receivers dedupe on) or, at most once, kept as `uncertain` for an
   * operator. Each channel done while others are still sending is recorded
   * in the store at once: a crash then never sends the batch to it again.
   */
  private async deliver(inboxId: string, messages: HeldMessage[], context: SendContext): Promise<DispatchReport> {
    const atMostOnce = this.settings.atMostOnce;
    const done = new Set(context.done.channels);
    const failures = [...context.done.failures];
    const pending = this.channels.filter((channel) => !done.has(channel.name));
    const retries: { channel: string; error: string }[] = [];
    let retryAfterMs: number | null = null;
    let unsettled = pending.length;
    let recorded = done.size;
    let recording: Promise<void> = Promise.resolve();
    // Records serialised, each with everything done so far: the last one written is the whole truth.
    const record = (): Promise<void> => {
      recorded = done.size;
      const progress = { channels: [...done], failures: [...failures] };
      recording = recording.then(() => context.progress(progress)).catch((error: unknown) => {
        // Lost progress costs a repeat to those channels on the retry (at least once), never a message.
        this.logger?.error({ inboxId, err: error }, 'dispatcher: recording which channels took a batch failed');
      });
      return recording;
    };
    await Promise.all(
      pending.map(async (channel) => {
        const outcome = await this.deliverTo(channel, inboxId, messages, context.contacts[channel.name] ?? null).catch(
          (error: unknown): ChannelOutcome => ({ status: 'retry', reason: describeError(error), ids: [] }),
        );
        unsettled -= 1;
        if (outcome.status === 'retry' || (outcome.status === 'uncertain' && !atMostOnce)) {
          retries.push({ channel: channel.name, error: outcome.status === 'uncertain' ? `uncertain: ${outcome.reason}` : outcome.reason });
          if (outcome.status === 'retry' && outcome.retryAfterMs !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, outcome.retryAfterMs);
          return;
        }
        done.add(channel.name);
        if (outcome.status === 'delivered') this.events.emit('channel:delivered', { inboxId, channel: channel.name, count: outcome.ids.length });
        if (outcome.status === 'rejected' || outcome.status === 'undeliverable' || outcome.status === 'uncertain') {
          failures.push({ messageIds: outcome.ids, channel: channel.name, kind: outcome.status, error: outcome.reason });
        }
        // Only what reached the outside needs recording at once: a skipped or undeliverable channel
        // comes out the same on a retry, so it costs no write while the others are still sending.
        if (unsettled > 0 && !atMostOnce && (outcome.status === 'delivered' || outcome.status === 'rejected')) await record();
      }),
    );
    if (retries.length > 0 && !atMostOnce) {
      if (done.size > recorded) await record();
      throw new ChannelsFailed(retries, messages.length, retryAfterMs);
    }
    if (retries.length > 0) this.lost(inboxId, new ChannelsFailed(retries, messages.length, retryAfterMs));
    return { failures };
  }

  /** One channel's part of a batch: only the messages meant for it, and only where it can reach the inbox's person. */
  private async deliverTo(channel: Channel, inboxId: string, messages: HeldMessage[], contact: string | null): Promise<ChannelOutcome> {
    const mine = messages.filter((m) => m.channel === null || m.channel === channel.name);
    const ids = mine.map((m) => m.id);
    if (mine.length === 0) return { status: 'skipped', ids };
    if (channel.contact === 'required' && contact === null) {
      return { status: 'undeliverable', ids, reason: `inbox ${inboxId} has no contacts.${channel.name}: set it, then redrive` };
    }
    const message: OutgoingMessage = { inboxId, body: mine.map((m) => m.body).join('\n\n'), messages: mine, id: batchId(inboxId, mine), contact };
    const result = (await this.sendOne(channel, message)) ?? delivered();
    return { ...result, ids };
  }

  /**
   * One channel, bounded: a channel that ignores its signal is stopped waiting for all the same.
   * A send cut off (the deadline, or stop()) was started and may have landed: uncertain.
   */
  private async sendOne(channel: Channel, message: OutgoingMessage): Promise<DeliveryResult | void> {
    const deadline = AbortSignal.timeout(this.settings.sendTimeoutMs);
    const signal = AbortSignal.any([this.stopSignal.signal, deadline]);
    signal.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<DeliveryResult>((resolve) => {
      // The deadline's own reason ("The operation was aborted due to timeout") names neither the channel nor the time.
      onAbort = () =>
        resolve(
          uncertain(
            deadline.aborted && !this.stopSignal.signal.aborted
              ? `send timeout: the ${channel.name} channel did not finish within ${this.settings.sendTimeoutMs} ms`
              : signal.reason instanceof Error
                ? signal.reason.message
                : `${channel.name}: send aborted`,
          ),
        );
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const sending = channel.send(message, signal);
    sending.catch(() => undefined);
    try {
      return await Promise.race([sending, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  }

  /** Backs off this inbox (exponentially, or as long as a channel's Retry-After asked, if longer). */
  private failed(inboxId: string, error: unknown): void {
    const failures = this.backoff.get(inboxId)?.failures ?? 0;
    const asked = error instanceof ChannelsFailed ? (error.retryAfterMs ?? 0) : 0;
    const retryInMs = Math.max(Math.min(this.settings.retry.baseMs * 2 ** failures, this.settings.retry.maxMs), asked);
    this.backoff.set(inboxId, { failures: failures + 1, retryAt: performance.now() + retryInMs });
    if (error instanceof ChannelsFailed) {
      for (const { channel, error: text } of error.failures) this.events.emit('channel:failed', { inboxId, channel, error: text, retryInMs });
    } else {
      this.logger?.error({ inboxId, err: error, retryInMs }, 'dispatch failed in the store; retrying');
    }
  }

  /** At most once: the channels that failed never get this batch. Said loudly, as it is a loss by choice. */
  private lost(inboxId: string, error: ChannelsFailed): void {
    for (const { channel, error: text } of error.failures) this.events.emit('outbox:lost', { inboxId, channel, count: error.messages, error: text });
  }

}

/** The dispatcher's options, each default filled and each value checked, once. */
interface DispatcherSettings {
  pollIntervalMs: number;
  /** How soon a pass that found work in flight looks again. */
  recheckMs: number;
  retry: RetryBackoff;
  sendTimeoutMs: number;
  concurrency: number;
  atMostOnce: boolean;
}

function dispatcherSettings(options: DispatcherOptions): DispatcherSettings {
  const pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs ?? RUNTIME_DEFAULTS.pollIntervalMs);
  const retry = options.retry ?? RUNTIME_DEFAULTS.dispatchRetry;
  positive('retry.baseMs', retry.baseMs);
  positive('retry.maxMs', retry.maxMs);
  const leaseTtlMs = positive('leaseTtlMs', leaseTtlOf('dispatcher', options.store, options.leaseTtlMs));
  const sendTimeoutMs = positive('sendTimeoutMs', options.sendTimeoutMs ?? Math.max(1, Math.floor(leaseTtlMs / 4)));
  if (sendTimeoutMs >= leaseTtlMs) {
    throw new VigilError('invalid_options', `sendTimeoutMs (${sendTimeoutMs}) must be well under leaseTtlMs (${leaseTtlMs}), or slow sends repeat`);
  }
  const delivery = options.delivery ?? 'at-least-once';
  if (delivery !== 'at-least-once' && delivery !== 'at-most-once') {
    throw new VigilError('invalid_options', `dispatcher: delivery must be 'at-least-once' or 'at-most-once', got ${JSON.stringify(delivery)}`);
  }
  return {
    pollIntervalMs,
    recheckMs: Math.min(1_000, pollIntervalMs),
    retry,
    sendTimeoutMs,
    concurrency: positive('concurrency', options.concurrency ?? RUNTIME_DEFAULTS.dispatcherConcurrency),
    atMostOnce: delivery === 'at-most-once',
  };
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new VigilError('invalid_options', `dispatcher: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}
