/**
 * One side's book of every event: when it was offered, whether the store
 * took it, and every delivery of its reply. From it come the per-sample
 * figures (throughput, latency) and the final verdict on loss and
 * duplication.
 *
 * Two kinds of repeat are told apart, by the id the reply was delivered
 * under (Vigil: the outbox message; graphile: the job):
 * - the same message delivered again: the dispatcher is at-least-once (a
 *   worker killed between the channel's send and the store's record sends
 *   that batch again), so this is expected and only counted;
 * - a second, different message for the same event: the event was done
 *   twice (two runs both finished it). For Vigil that breaks the fence and
 *   fails the run.
 * Per event the book keeps numbers in typed arrays, not objects: a 30-minute
 * run offers a few hundred thousand events.
 */

export interface Window {
  /** Events the workers finished (their own count, over IPC). */
  done: number;
  /** Events whose reply was delivered for the first time. */
  delivered: number;
  /** Deliveries of a message already delivered (at-least-once). */
  duplicates: number;
  /** Milliseconds from offer to first delivery, per event delivered in the window. */
  latencies: number[];
}

export interface LedgerVerdict {
  offered: number;
  stored: number;
  /** Events the producer gave up storing (the store kept failing): not offered to the system, so not "lost". */
  gaveUp: number;
  /** Ingests that answered "duplicate" without an earlier failed attempt: the key was stored twice by us. */
  unexpectedDuplicates: number;
  delivered: number;
  /** Stored events with no delivered reply at the end: lost (or still stuck). */
  notDelivered: number;
  notDeliveredSample: number[];
  /** Replies under a second (third, ...) different message for an event: done twice. */
  doneTwice: number;
  doneTwiceSample: number[];
  /** Deliveries of a message already delivered. */
  duplicateDeliveries: number;
  /** Events whose reply was delivered more than once (under one message or several). */
  deliveredMoreThanOnce: number;
  /** Replies for events this ledger never offered: must be 0. */
  strangers: number;
}

class Growable {
  private data: Float64Array;
  constructor(private readonly fill: number) {
    this.data = new Float64Array(1024).fill(fill);
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : this.fill;
  }
  set(i: number, value: number): void {
    if (i >= this.data.length) {
      let size = this.data.length;
      while (size <= i) size *= 2;
      const next = new Float64Array(size).fill(this.fill);
      next.set(this.data);
      this.data = next;
    }
    this.data[i] = value;
  }
}

const STORED = 1;
const GAVE_UP = 2;

export class Ledger {
  private offered = 0;
  private readonly offeredAt = new Growable(Number.NaN);
  private readonly flags = new Growable(0);
  private readonly firstMessage = new Growable(Number.NaN);
  private readonly deliveries = new Growable(0);
  private readonly counts = { stored: 0, gaveUp: 0, unexpectedDuplicates: 0, delivered: 0, doneTwice: 0, duplicates: 0, strangers: 0 };
  private window: Window = emptyWindow();
  private phase = '';
  private readonly byPhase = new Map<string, number[]>();
  private readonly doneTwiceSample: number[] = [];

  /** Latencies from here on belong to `phase`. */
  setPhase(phase: string): void {
    this.phase = phase;
  }

  offer(seq: number, t: number): void {
    this.offeredAt.set(seq, t);
    this.offered = Math.max(this.offered, seq + 1);
  }

  stored(seq: number, { duplicate, afterFailure }: { duplicate: boolean; afterFailure: boolean }): void {
    if (duplicate && !afterFailure) this.counts.unexpectedDuplicates += 1;
    this.flags.set(seq, this.flags.get(seq) | STORED);
    this.counts.stored += 1;
  }

  gaveUp(seq: number): void {
    this.flags.set(seq, this.flags.get(seq) | GAVE_UP);
    this.counts.gaveUp += 1;
  }

  done(count: number): void {
    this.window.done += count;
  }

  delivered(at: number, messages: readonly { id: number; body: string }[]): void {
    for (const message of messages) {
      const { seq } = JSON.parse(message.body) as { seq: number };
      const t = this.offeredAt.get(seq);
      if (!Number.isInteger(seq) || Number.isNaN(t)) {
        this.counts.strangers += 1;
        continue;
      }
      const first = this.firstMessage.get(seq);
      this.deliveries.set(seq, this.deliveries.get(seq) + 1);
      if (Number.isNaN(first)) {
        this.firstMessage.set(seq, message.id);
        this.counts.delivered += 1;
        this.window.delivered += 1;
        const latency = Math.max(0, at - t);
        this.window.latencies.push(latency);
        const phase = this.byPhase.get(this.phase) ?? [];
        phase.push(latency);
        this.byPhase.set(this.phase, phase);
      } else if (first === message.id) {
        this.counts.duplicates += 1;
        this.window.duplicates += 1;
      } else {
        this.counts.doneTwice += 1;
        if (this.doneTwiceSample.length < 20) this.doneTwiceSample.push(seq);
      }
    }
  }

  /** Everything since the last call. */
  takeWindow(): Window {
    const window = this.window;
    this.window = emptyWindow();
    return window;
  }

  get deliveredCount(): number {
    return this.counts.delivered;
  }

  get storedCount(): number {
    return this.counts.stored;
  }

  /** Milliseconds from offer to first delivery, every event delivered while `phase` ran. */
  phaseLatencies(phase: string): number[] {
    return this.byPhase.get(phase) ?? [];
  }

  verdict(): LedgerVerdict {
    const notDelivered: number[] = [];
    let deliveredMoreThanOnce = 0;
    for (let seq = 0; seq < this.offered; seq++) {
      const stored = (this.flags.get(seq) & STORED) !== 0;
      const deliveries = this.deliveries.get(seq);
      if (stored && deliveries === 0) notDelivered.push(seq);
      if (deliveries > 1) deliveredMoreThanOnce += 1;
    }
    return {
      offered: this.offered,
      stored: this.counts.stored,
      gaveUp: this.counts.gaveUp,
      unexpectedDuplicates: this.counts.unexpectedDuplicates,
      delivered: this.counts.delivered,
      notDelivered: notDelivered.length,
      notDeliveredSample: notDelivered.slice(0, 20),
      doneTwice: this.counts.doneTwice,
      doneTwiceSample: [...this.doneTwiceSample],
      duplicateDeliveries: this.counts.duplicates,
      deliveredMoreThanOnce,
      strangers: this.counts.strangers,
    };
  }
}

function emptyWindow(): Window {
  return { done: 0, delivered: 0, duplicates: 0, latencies: [] };
}

/** The q-quantile (0..1) of unsorted values, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
