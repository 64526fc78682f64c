/**
 * The one Store (contract.ts) over a backend's port: it validates ids and
 * queries, hands out the engine's inboxes and views, and fans the port's
 * wake-up hints out to subscribers. `openStore` builds one per backend.
 */
import { readClock, type Clock } from '../../clock.js';
import { RuntimeEvents } from '../../events.js';
import { VigilError } from '../../errors.js';
import type { Inbox, InboxList, InboxListQuery, InboxRecord, InboxView, NextWake, PruneResult, Store, WakeKind, WakeListener } from '../contract.js';
import { EngineInbox, type EngineContext } from './inbox.js';
import { PruneSweep } from './lifecycle.js';
import type { StorePort } from './port.js';
import * as v from './validate/index.js';
import { EngineView } from './view.js';

/** The backend under each store this engine made: for store/seam.ts and backend tests, never a public property. */
const ports = new WeakMap<Store, StorePort>();

/** The backend under `store`, when the engine made it (openStore, throwawayStore); undefined for any other Store. */
export function portOf(store: Store): StorePort | undefined {
  return ports.get(store);
}

export class VigilStore implements Store {
  readonly events: RuntimeEvents;
  private readonly context: EngineContext;
  private closing: Promise<void> | null = null;
  private readonly sweep: PruneSweep;

  constructor(
    private readonly port: StorePort,
    events?: RuntimeEvents,
  ) {
    ports.set(this, port);
    this.events = events ?? new RuntimeEvents();
    const clock = port.options.clock;
    this.context = {
      options: port.options,
      events: this.events,
      notify: (inboxId, kind) => this.notify(inboxId, kind),
      appNow: () => (clock === 'database' ? Date.now() : readClock(clock as Clock)),
    };
    this.sweep = new PruneSweep(port);
  }

  get leaseTtlMs(): number {
    return this.port.options.leaseTtlMs;
  }

  inbox(id: string): Inbox {
    this.assertOpen();
    return new EngineInbox(this.port.inbox(v.validateInboxId(id)), this.context);
  }

  view(id: string): InboxView {
    this.assertOpen();
    return new EngineView(this.port.view(v.validateInboxId(id)));
  }

  async inboxes(): Promise<string[]> {
    this.assertOpen();
    return this.port.inboxes();
  }

  async readyInboxes({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    this.assertOpen();
    return this.port.readyInboxes(v.validateLimit(limit));
  }

  async dispatchableInboxes({ limit = 100 }: { limit?: number } = {}): Promise<string[]> {
    this.assertOpen();
    return this.port.dispatchableInboxes(v.validateLimit(limit));
  }

  async listInboxes(query?: InboxListQuery): Promise<InboxList> {
    this.assertOpen();
    return this.port.listInboxes(v.validateInboxListQuery(query));
  }

  async nextWake(): Promise<NextWake> {
    this.assertOpen();
    return this.port.nextWake();
  }

  async probeWrites(): Promise<void> {
    this.assertOpen();
    await this.port.probeWrites();
  }

  async subscribe(listener: WakeListener): Promise<() => Promise<void>> {
    this.assertOpen();
    if (typeof listener !== 'function') throw new VigilError('invalid_argument', 'subscribe needs a listener function');
    return this.port.subscribe((inboxId, kind) => {
      try {
        listener(inboxId, kind);
      } catch {
        // A hint's listener must not fail the write that already committed.
      }
    });
  }

  async endSession(sessionId: string, expiresAt: number): Promise<void> {
    this.assertOpen();
    const checked = v.validateSessionEnd(sessionId, expiresAt);
    await this.port.endSession(checked.sessionId, checked.expiresAt);
  }

  async sessionEnded(sessionId: string): Promise<boolean> {
    this.assertOpen();
    return this.port.sessionEnded(v.validateSessionId(sessionId));
  }

  async prune({ limit = 1_000 }: { limit?: number } = {}): Promise<PruneResult> {
    this.assertOpen();
    const checked = v.validateLimit(limit, 100_000);
    const pruned = await this.sweep.run(checked);
    if (pruned.events + pruned.messages + pruned.approvals + pruned.actions + pruned.effects + pruned.usage > 0) this.events.emit('store:pruned', pruned);
    return pruned;
  }

  async *exportInbox(id: string): AsyncGenerator<InboxRecord> {
    this.assertOpen();
    yield* this.port.exportInbox(v.validateInboxId(id));
  }

  async deleteInbox(id: string): Promise<boolean> {
    this.assertOpen();
    const inboxId = v.validateInboxId(id);
    const deleted = await this.port.deleteInbox(inboxId);
    if (deleted) this.events.emit('inbox:deleted', { inboxId });
    return deleted;
  }

  async importInbox(id: string, records: Iterable<unknown> | AsyncIterable<unknown>): Promise<{ records: number }> {
    this.assertOpen();
    const inboxId = v.validateInboxId(id);
    const written = await this.port.importInbox(inboxId, v.validateRecords(records, this.port.options.maxPayloadBytes));
    this.events.emit('inbox:imported', { inboxId, records: written });
    await this.notify(inboxId, 'work');
    await this.notify(inboxId, 'outbox');
    return { records: written };
  }

  /**
   * A hint after a commit, sent before the call returns (so hints arrive in
   * the order of the calls that made them), and never worth failing the
   * operation that committed for.
   */
  private async notify(inboxId: string, kind: WakeKind): Promise<void> {
    await this.port.notify(inboxId, kind).catch(() => undefined);
  }

  close(): Promise<void> {
    this.closing ??= this.port.close();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private assertOpen(): void {
    if (this.closing !== null) throw new VigilError('store_closed', 'this store was closed; open a new one with openStore()');
  }
}
