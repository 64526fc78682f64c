/**
 * A SQLite inbox as a whole: exported from a snapshot, deleted with its
 * files, imported as a new file (contract.ts: exportInbox, deleteInbox,
 * importInbox).
 *
 * Deleting a file other processes may have open: deleteInbox marks it
 * deleted in a last transaction (meta.deleted), then removes its names. A
 * process that still has it open sees the mark at its next transaction on
 * it, rolls that back and opens the inbox afresh by name (SqliteStore.use),
 * so nothing is written to a file no longer there. What SQLite's files
 * cannot make safe is two *other* processes that both use the inbox while
 * it is being deleted (a WAL file's name can then lead to the new file's):
 * delete an inbox from the process that serves it (`DELETE /inboxes/<id>`)
 * or while no other is running.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { InboxRecord } from '../contract.js';
import { leaseLive } from '../engine/lease.js';
import { inboxBusy, inboxExists } from '../engine/lifecycle.js';
import { caseCollision, type CheckedRecord } from '../engine/validate/index.js';
import { exportFile } from './export.js';
import { removeIfThere, writeStagingFile } from './import.js';
import type { InboxDb } from './inbox-db.js';
import { readLease } from './lease.js';

/** Whether an inbox holds anything a person put there (a lease or pacing row alone is not). */
const HOLDS_ANYTHING = `
SELECT EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM tombstones) OR EXISTS (SELECT 1 FROM outbox)
    OR EXISTS (SELECT 1 FROM approvals) OR EXISTS (SELECT 1 FROM timers) OR EXISTS (SELECT 1 FROM memory)
    OR EXISTS (SELECT 1 FROM session) OR EXISTS (SELECT 1 FROM settings) OR EXISTS (SELECT 1 FROM operator_actions)`;

/** What the lifecycle needs of its store (sqlite-store.ts). */
export interface InboxFileHost {
  readonly dir: string;
  readonly busyTimeoutMs: number;
  fileOf(inboxId: string): string;
  use<T>(inboxId: string, create: boolean, fn: (c: InboxDb) => T, options?: { passing?: boolean }): T | null;
  /** Closes this process's connection to the inbox, if it has one. */
  closeInbox(inboxId: string): void;
  /** Drops the inbox's row from the ready index. */
  unlist(inboxId: string): void;
  /** Sets the inbox's row in the ready index from its file, and tells subscribers of its work. */
  list(inboxId: string): void;
  /** Another inbox whose id differs from this one only in case. */
  caseTwin(inboxId: string): string | undefined;
}

export async function* exportInbox(host: InboxFileHost, inboxId: string): AsyncGenerator<InboxRecord> {
  // Opened through the store first: it brings an old file's schema up to date and sees a deletion.
  const file = host.use(inboxId, false, (c) => c.read(() => c.file), { passing: true });
  if (file === null) return;
  yield* exportFile(file, host.busyTimeoutMs);
}

export function deleteInbox(host: InboxFileHost, inboxId: string): boolean {
  const marked = host.use(
    inboxId,
    false,
    (c) => {
      c.markDeleted((now) => {
        if (leaseLive(readLease(c), now)) throw inboxBusy(inboxId);
      });
      return c.inode;
    },
    { passing: true },
  );
  if (marked === null) return false;
  host.closeInbox(inboxId);
  const file = host.fileOf(inboxId);
  if (inodeOf(file) === marked) {
    // Main file first: from then on its name leads to a new file, never back to this one's WAL.
    for (const suffix of ['', '-wal', '-shm']) removeIfThere(file + suffix);
    syncDir(host.dir);
  }
  host.unlist(inboxId);
  return true;
}

export async function importInbox(host: InboxFileHost, inboxId: string, records: AsyncIterable<CheckedRecord>): Promise<number> {
  const twin = host.caseTwin(inboxId);
  if (twin !== undefined && twin !== inboxId) throw caseCollision(inboxId, twin);
  // Refused before a record is read, and again when the file is linked in (it may be written meanwhile).
  if (holdsAnything(host, inboxId)) throw inboxExists(inboxId);
  const staging = join(host.dir, `.import-${inboxId}-${randomUUID()}.db`);
  try {
    const written = await writeStagingFile(staging, records);
    linkIn(host, inboxId, staging);
    host.list(inboxId);
    return written;
  } finally {
    removeIfThere(staging);
  }
}

function linkIn(host: InboxFileHost, inboxId: string, staging: string): void {
  const file = host.fileOf(inboxId);
  try {
    linkSync(staging, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A file that holds nothing (a worker's lease, say) gives way, unless its lease is live.
    if (holdsAnything(host, inboxId)) throw inboxExists(inboxId);
    deleteInbox(host, inboxId);
    linkSync(staging, file);
  }
  syncDir(host.dir);
}

function holdsAnything(host: InboxFileHost, inboxId: string): boolean {
  return host.use(inboxId, false, (c) => c.read(() => c.stmt(HOLDS_ANYTHING).pluck().get() === 1), { passing: true }) ?? false;
}

function inodeOf(file: string): number | null {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
}

/** Makes a new or removed name in the directory durable. */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
