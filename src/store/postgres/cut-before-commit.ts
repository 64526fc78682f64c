/**
 * One inbox's write verbs cut off before their COMMIT (../seam.ts): the
 * same port code, over a backend whose every statement and transaction
 * runs whole in a transaction on the inbox's locked row and is then rolled
 * back, as a process killed at that moment would leave it. A rolled-back
 * transaction's NOTIFY is never sent: no other process hears of it.
 */
import type { InboxPort, StorePort } from '../engine/port.js';
import type { Statement } from './call.js';
import type { InboxTx } from './inbox-tx.js';
import { PostgresInboxPort, type InboxBackend } from './inbox-port.js';
import { PostgresStore } from './postgres-store.js';

export function cutBeforeCommit(port: StorePort, inboxId: string): InboxPort {
  if (!(port instanceof PostgresStore)) throw new TypeError('not a PostgreSQL store');
  return new PostgresInboxPort(new RollingBack(port, inboxId), inboxId);
}

/** Thrown at the end of a cut transaction, so that it rolls back; caught here. */
const CUT = Symbol('cut before commit');

class RollingBack implements InboxBackend {
  constructor(
    private readonly store: PostgresStore,
    private readonly inboxId: string,
  ) {}

  get options(): PostgresStore['options'] {
    return this.store.options;
  }

  get channel(): string {
    return this.store.channel;
  }

  appNow(): number | null {
    return this.store.appNow();
  }

  async transaction<T>(inboxId: string, create: boolean, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'> {
    let result: { value: T } | undefined;
    try {
      const outcome = await this.store.transaction(inboxId, create, async (tx) => {
        result = { value: await fn(tx) };
        throw CUT;
      });
      if (outcome === 'absent') return outcome;
    } catch (error) {
      if (error !== CUT) throw error;
    }
    return result!;
  }

  /** A statement that would be its own transaction runs in one on the inbox's row, rolled back. */
  async callThenCommit<T extends object>(statement: Statement, params: unknown[]): Promise<T[]> {
    const done = await this.transaction(this.inboxId, false, (tx) => tx.rows<T>(statement.text, params));
    return done === 'absent' ? [] : done.value;
  }

  call<T extends object>(statement: Statement, params: unknown[]): Promise<T[]> {
    return this.callThenCommit(statement, params);
  }

  callThenWake<T extends object>(statement: Statement, params: unknown[]): Promise<T[]> {
    return this.callThenCommit(statement, params);
  }

  /** Alone, never in a group that commits. */
  runStep<T extends object>(_inboxId: string, _statement: Statement, _params: unknown[], { alone }: { alone: () => Promise<T[]> }): Promise<T[]> {
    return alone();
  }

  query<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    return this.store.query(sql, params);
  }

  queryByIndex<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    return this.store.queryByIndex(sql, params);
  }

  besideWriters<T>(inboxId: string, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'> {
    return this.transaction(inboxId, false, fn);
  }
}
