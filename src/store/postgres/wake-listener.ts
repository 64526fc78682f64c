/**
 * Wake-up hints over LISTEN/NOTIFY. Once a write that lands work in an
 * inbox has committed, the store sends pg_notify(channel, '<kind>:<inbox>')
 * ('work' or 'outbox'), delivered to every machine listening, never for a
 * write that rolled back. A notification is only a latency hint: one sent
 * while this listener was reconnecting is lost, so workers keep polling
 * readyInboxes() as well.
 *
 * One dedicated connection per store, outside the pool (a pooled connection
 * would be handed to queries and its LISTEN would die with it), opened on
 * the first subscribe, reconnected with backoff after a loss, ended when the
 * last listener leaves or the store closes.
 */
import pg from 'pg';
import type { WakeKind, WakeListener } from '../contract.js';
import { quoteIdent } from './connection.js';
import { translate } from './errors.js';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

export class NotificationListener {
  private readonly listeners = new Set<WakeListener>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs = RECONNECT_MIN_MS;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
  ) {}

  /** Resolves once LISTEN is in place: a write committed after that is heard. */
  async add(listener: WakeListener): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    try {
      await this.listen();
    } catch (error) {
      this.listeners.delete(listener);
      throw translate(error);
    }
    return async () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.disconnect();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.disconnect();
  }

  private listen(): Promise<void> {
    if (this.client !== null) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.config, application_name: 'vigil-listener' });
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.emit(message.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed || this.listeners.size === 0) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryDelayMs = RECONNECT_MIN_MS;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.listeners.size === 0 || this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.listen().catch(() => {
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, RECONNECT_MAX_MS);
        this.scheduleReconnect();
      });
    }, this.retryDelayMs);
    // A reconnect loop alone must not keep a process alive.
    this.retryTimer.unref();
  }

  private async disconnect(): Promise<void> {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private emit(payload: string): void {
    const colon = payload.indexOf(':');
    const kind = payload.slice(0, colon);
    if (kind !== 'work' && kind !== 'outbox') return; // not ours
    const inboxId = payload.slice(colon + 1);
    for (const listener of this.listeners) {
      try {
        listener(inboxId, kind as WakeKind);
      } catch {
        // A hint's listener must not break the connection that carries the others.
      }
    }
  }
}
