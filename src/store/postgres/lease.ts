/**
 * R2 (the lease) and R3 (fencing) on the inbox row: holder, gen, until. A
 * lease is valid while `until >= now`. Both calls are one statement each:
 * vigil_acquire and vigil_release (functions/lease.sql) lock the
 * row, decide on it and refresh the work table in one transaction.
 * With the default `clock: 'database'`, `now` is the server's clock (R13):
 * workers whose own clocks disagree still agree on who holds the lease.
 */
import type { Acquired } from '../engine/port.js';
import { workParams, type CallTarget, type Statement } from './call.js';

const ACQUIRE: Statement = {
  name: 'vigil_acquire',
  text: 'SELECT o_gen AS gen, o_renewed AS renewed, o_takeover AS takeover FROM vigil_acquire($1, $2, $3, $4, $5, $6, $7, $8)',
};

const RELEASE: Statement = {
  name: 'vigil_release',
  text: 'SELECT vigil_release($1, $2, $3, $4, $5, $6, $7, $8) AS released',
};

/**
 * R2: renewing keeps the generation; any takeover, even by the same holder
 * after its lease lapsed, starts a new one, so a worker that slept through
 * its expiry can never pass the fence with its old claim. Creates the inbox.
 */
export async function acquireLease(db: CallTarget, inboxId: string, holder: string): Promise<Acquired | null> {
  const { options } = db;
  const [row] = await db.call<{ gen: number | null; renewed: boolean; takeover: boolean }>(ACQUIRE, [
    inboxId,
    holder,
    db.appNow(),
    options.leaseTtlMs,
    ...workParams(options),
  ]);
  return row === undefined || row.gen === null ? null : { gen: row.gen, renewed: row.renewed, takeover: row.takeover };
}

/** R2: ends the lease now, so the next acquire takes over at once with gen + 1. */
export async function releaseLease(db: CallTarget, inboxId: string, holder: string, gen: number): Promise<boolean> {
  const [row] = await db.call<{ released: boolean }>(RELEASE, [inboxId, holder, gen, db.appNow(), ...workParams(db.options)]);
  return row?.released === true;
}
