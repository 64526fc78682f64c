/**
 * The floors under the two dispatch rows: the SQL and commits Vigil's
 * dispatch cannot do without, straight through better-sqlite3 on files with
 * Vigil's own inbox schema (its migrations), WAL and synchronous FULL, with
 * no ready index, no pacing and no JavaScript around them. What Vigil adds
 * on top of these is its own cost; what these cost is the disk's and SQLite's.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { migrate, useIncrementalVacuum } from '../src/store/sqlite/migrate.js';
import { elapsedSeconds, startTimer } from './timing.js';

// The same statements Vigil's dispatch runs (src/store/sqlite/dispatch.ts): the held rows from
// the oldest held one in id order, and the batch marked sent as a range of ids.
const HELD = `
SELECT id, body, urgent, channel FROM outbox
WHERE id >= (SELECT min(id) FROM outbox INDEXED BY outbox_held WHERE sent_at IS NULL) AND sent_at IS NULL
ORDER BY id`;
const MARK_SENT = 'UPDATE outbox SET sent_at = ? WHERE sent_at IS NULL AND id BETWEEN ? AND ?';
const QUEUE = 'INSERT INTO outbox (body, urgent, created_at) VALUES (?, 0, 1)';

function openInboxFile(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

function newInboxFile(dir: string, name: string, messages: number): Db {
  const file = join(dir, `${name}.db`);
  const db = openInboxFile(file);
  useIncrementalVacuum(db, 'new'); // as a Vigil inbox file is made: its page layout too
  migrate(db, file);
  const queue = db.prepare(QUEUE);
  db.transaction(() => {
    for (let i = 0; i < messages; i++) queue.run(`message ${i}`);
  })();
  return db;
}

/**
 * The floor under "dispatch of N held messages": in one durable
 * transaction, the SELECT of the N held rows and the UPDATE that marks them
 * sent. Milliseconds.
 */
export function heldSelectUpdateFloor(scratch: string, messages: number): number {
  const db = newInboxFile(mkdtempSync(join(scratch, 'dispatch-floor-')), 'inbox', messages);
  try {
    const held = db.prepare(HELD).raw();
    const markSent = db.prepare(MARK_SENT);
    const start = startTimer();
    db.exec('BEGIN IMMEDIATE');
    const rows = held.all() as [number, string, number, string | null][];
    markSent.run(2, rows[0]![0], rows[rows.length - 1]![0]);
    db.exec('COMMIT');
    const seconds = elapsedSeconds(start);
    if (rows.length !== messages) throw new Error(`floor read ${rows.length} of ${messages} held rows`);
    return seconds * 1000;
  } finally {
    db.close();
  }
}

/**
 * The floor under a dispatcher's pass over `inboxes` inboxes with one held
 * message each, per message. Each file holds its message already (setup);
 * timed, for each file in turn: open it, a commit without a flush (the
 * reservation), a durable commit (the record of the send), close it. A store
 * that keeps a bounded number of files open (descriptors: three per WAL
 * file) opens and closes nearly every file of a pass over more inboxes than
 * that, and the close of a WAL file checkpoints it (two more flushes) and
 * removes its WAL, which the next open's first commit creates again (a
 * flush of its header and one of the directory). The reference keeps its
 * files open, so it pays none of that. Milliseconds per message.
 */
export function spreadDispatchFloor(scratch: string, inboxes: number): number {
  const dir = mkdtempSync(join(scratch, 'spread-floor-'));
  // One file made, then copied: closed, it is the whole database (its WAL checkpointed and gone).
  newInboxFile(dir, 'template', 1).close();
  for (let i = 0; i < inboxes; i++) copyFileSync(join(dir, 'template.db'), join(dir, `user-${i}.db`));
  const start = startTimer();
  for (let i = 0; i < inboxes; i++) {
    const db = openInboxFile(join(dir, `user-${i}.db`));
    db.pragma('synchronous = NORMAL');
    db.prepare('INSERT INTO outbox_reservation (one, token, until, first_id, last_id) VALUES (1, ?, 1, 1, 1)').run(`token-${i}`);
    db.pragma('synchronous = FULL');
    db.transaction(() => {
      db.prepare(MARK_SENT).run(2, 1, 1);
      db.prepare('DELETE FROM outbox_reservation').run();
    }).immediate();
    db.close();
  }
  return (elapsedSeconds(start) * 1000) / inboxes;
}
