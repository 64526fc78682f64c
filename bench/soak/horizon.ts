/**
 * The idle-in-transaction session: a separate connection that runs
 * `BEGIN; SELECT txid_current();` and then does nothing. The transaction
 * id it was given stays in every other session's snapshot as "still
 * running", so the server's xmin horizon cannot pass it and vacuum can
 * remove no row version that died after it began, in any table of the
 * database: the forgotten psql session, a long report, a slow replica with
 * hot_standby_feedback. release() rolls it back and closes the connection.
 */
import pg from 'pg';

export interface HeldHorizon {
  xid: string;
  release(): Promise<void>;
}

export async function holdHorizon(url: string): Promise<HeldHorizon> {
  const client = new pg.Client({ connectionString: url, application_name: 'vigil-soak-idle-in-transaction' });
  // A broken connection ends the transaction too: the horizon is released, which release() then finds.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ xid: string }>('SELECT txid_current()::text AS xid');
    return {
      xid: rows[0]?.xid ?? '?',
      async release() {
        await client.query('ROLLBACK').catch(() => undefined);
        await client.end().catch(() => undefined);
      },
    };
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}
