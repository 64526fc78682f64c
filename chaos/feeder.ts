/**
 * Feeds the plan to the store as a webhook source would: each event once,
 * some twice in the same delivery, some again later (after they may have
 * run). Half the deliveries are one ingestMany per inbox, half are single
 * ingests sent at once, so duplicates also race each other.
 * Every `true` is an acknowledgement: the event must be stored, once.
 */
import type { NewEvent, Store } from '../src/store/contract.js';
import type { PlannedEvent } from './plan.js';
import { shuffle } from './random.js';

export const eventKey = (inbox: string, sourceId: string): string => `${inbox}/${sourceId}`;

export class Feeder {
  /** Per event key: how many ingests returned true. */
  readonly acks = new Map<string, number>();
  deliveries = 0;
  refused = 0;
  private redeliver: PlannedEvent[] = [];

  constructor(
    private readonly store: Store,
    private readonly duplicateRate: number,
    private readonly random: () => number,
  ) {}

  /** Delivers `events` (with their duplicates) and the redeliveries held back from earlier calls. */
  async feed(events: readonly PlannedEvent[]): Promise<void> {
    const batch: PlannedEvent[] = [...this.redeliver.splice(0)];
    for (const event of events) {
      batch.push(event);
      const roll = this.random();
      if (roll < this.duplicateRate / 2) batch.push(event);
      else if (roll < this.duplicateRate) this.redeliver.push(event);
    }
    const byInbox = new Map<string, PlannedEvent[]>();
    for (const event of shuffle(batch, this.random)) byInbox.set(event.inbox, [...(byInbox.get(event.inbox) ?? []), event]);
    await Promise.all([...byInbox].map(([inbox, list]) => this.deliver(inbox, list)));
  }

  /** Delivers whatever redeliveries are still held back. */
  async flush(): Promise<void> {
    await this.feed([]);
  }

  private async deliver(inboxId: string, events: PlannedEvent[]): Promise<void> {
    const inbox = this.store.inbox(inboxId);
    const toNew = (e: PlannedEvent): NewEvent => ({ source: 'chaos', sourceId: e.sourceId, payload: e.payload });
    const results = this.random() < 0.5 ? await inbox.ingestMany(events.map(toNew)) : await Promise.all(events.map((e) => inbox.ingest(toNew(e))));
    results.forEach((stored, i) => {
      const key = eventKey(inboxId, events[i]!.sourceId);
      this.deliveries += 1;
      if (stored) this.acks.set(key, (this.acks.get(key) ?? 0) + 1);
      else this.refused += 1;
    });
  }
}
