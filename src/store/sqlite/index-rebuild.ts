/**
 * The ready index re-derived from the inbox files (ready-index.md): by
 * itself at the first open in each machine boot (rebuildAfterBoot), or by
 * hand (SqliteStore.rebuildReadyIndex) for an index file damaged while the
 * store is open.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WakeKind } from '../contract.js';
import { collectGarbage } from './collect-garbage.js';
import type { InboxDb } from './inbox-db.js';
import { earlier, type ReadyIndex } from './ready-index.js';

/** The rebuild after a boot collects garbage after this many files (collect-garbage.ts says why); ~10 ms a time. */
const REBUILD_GC_EVERY = 2_000;

/** What the rebuild uses of its store. */
export interface RebuildHost {
  readonly index: ReadyIndex;
  closed(): boolean;
  assertOpen(): void;
  inboxFileIds(): string[];
  /** The inbox's file, or null when it has none; `opened`: opened for this visit alone, to be closed after it. */
  visit(inboxId: string): { c: InboxDb; opened: boolean } | null;
  wake(inboxId: string, kind: WakeKind): void;
}

/**
 * The first open in a machine boot re-derives the ready index from every
 * inbox file: a power loss may have taken the index's last commits (it is
 * written without fsync) but never an inbox's, and without this an event
 * stored before it, or a timer, could stay unlisted until its inbox was
 * written again. Also runs for an index file that is new while inbox files
 * exist (it was deleted). Each inbox's row is set from
 * a read snapshot of its file, which writes nothing there; only a row the
 * index holds from a later write_seq than the file (it kept a lowering
 * whose unflushed inbox commit was lost) takes a write transaction.
 *
 * It runs in the background, a slice at a time, because it costs about
 * 1 ms per inbox file (10,000 inboxes: ~10 s): the store is open and
 * taking events at once, and readyInboxes() lists what the index knows,
 * which is everything but what the power loss took. Each inbox the rebuild
 * finds work in that the index did not show is announced to subscribe()'s
 * listeners, as a write would be, so a worker pool hears of it.
 * readyIndexSettled() resolves when it is done. An inbox that cannot be
 * read now is left to its next write, and the next open tries again; so
 * does a store closed before the rebuild finished (a CLI command, say: it
 * leaves the rebuild to the next long-lived process).
 */
export async function rebuildAfterBoot(host: RebuildHost, bootId: string, sliceMs: number): Promise<void> {
  let complete = true;
  try {
    const inboxIds = host.inboxFileIds();
    // With nothing to re-derive, the boot is recorded now, so that a store
    // opened and closed at once (the CLI, a test's setup) does not leave it
    // to the next open. Otherwise the open returns first.
    if (inboxIds.length > 0) await nextTurn();
    let slice = performance.now();
    let visited = 0;
    for (const id of inboxIds) {
      if (host.closed()) return;
      try {
        rederive(host, id);
      } catch {
        complete = false;
      }
      if (++visited % REBUILD_GC_EVERY === 0) collectGarbage();
      if (performance.now() - slice >= sliceMs) {
        await nextTurn();
        slice = performance.now();
      }
    }
    if (complete && !host.closed()) host.index.markRebuilt(bootId);
  } catch {
    // The directory could not be listed, or the index not written: the next open tries again.
  }
}

/**
 * One inbox's index row from a read snapshot, or a write when the index is
 * ahead of the file. Work the index did not show is announced.
 */
export function rederive(host: RebuildHost, inboxId: string): void {
  host.assertOpen();
  const visit = host.visit(inboxId);
  if (visit === null) return;
  const before = host.index.current(inboxId);
  try {
    if (!visit.c.settleFromSnapshot()) visit.c.reindex();
  } finally {
    if (visit.opened) visit.c.close();
  }
  const after = host.index.current(inboxId);
  if (after === undefined) return;
  if (earlier(after.wakeAt, before?.wakeAt ?? null)) host.wake(inboxId, 'work');
  if (earlier(after.sendAt, before?.sendAt ?? null)) host.wake(inboxId, 'outbox');
}
