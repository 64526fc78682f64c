/**
 * How the PostgreSQL store connects: the URL, the schema its tables live in,
 * and the pool every operation borrows a connection from.
 */
import pg from 'pg';
import { VigilError } from '../../errors.js';
import { parsePostgresUrl } from '../store-url.js';

export const DEFAULT_SCHEMA = 'vigil';

/**
 * Lower-case so it never needs quoting (an unquoted name folds to lower case,
 * and a mixed-case schema would silently be another one), and short enough
 * that the notification channel `vigil_<schema>` fits PostgreSQL's 63 bytes.
 */
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,55}$/;

/** The database's clock in integer milliseconds (R13), read where it is written. */
export const DB_NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

export interface Connection {
  /** What pg.Pool and pg.Client take: the URL without Vigil's own parameters. */
  config: pg.ClientConfig;
  schema: string;
  /** LISTEN/NOTIFY channel of this schema's wake-up hints. */
  channel: string;
}

/**
 * Reads `postgres://user:pass@host:port/db?schema=name`. The `schema` option
 * wins over the URL parameter. The schema is put on every connection's
 * search_path at startup, so the SQL names its tables without a prefix.
 */
export function parseConnection(url: string, schemaOption: unknown): Connection {
  // No cause kept from a failed parse: Node's URL error carries the whole input, password and all, to any log that prints it.
  const parsed = parsePostgresUrl(url);
  const schema = schemaOption ?? parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (typeof schema !== 'string' || !SCHEMA_PATTERN.test(schema)) {
    throw new VigilError(
      'invalid_options',
      `schema must be 1-56 characters from a-z 0-9 _ and not start with a digit, got ${JSON.stringify(schema)}`,
    );
  }
  // A user's own `options=` (statement_timeout, ...) is kept, with our search_path appended.
  const userOptions = parsed.searchParams.get('options');
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('options');
  const options = [userOptions, `-c search_path=${schema}`].filter((part) => part !== null).join(' ');
  return {
    config: { connectionString: parsed.toString(), options, types: typeParsers() },
    schema,
    channel: `vigil_${schema}`,
  };
}

/**
 * bigint columns (times, ids, generations, counts) arrive as numbers. pg
 * hands them over as strings by default because they may exceed 2^53; every
 * value Vigil stores is a safe integer, and one that is not is a bug to see.
 */
function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (text: string) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value)) throw new Error(`bigint ${text} is not a safe JavaScript integer`);
    return value;
  });
  return types;
}

/**
 * For the overview alone (listInboxes): bigints as numbers even past 2^53,
 * so one inbox's row out of range (written by an older version, or by hand)
 * is that inbox's unreadable row (rows.ts, toSummary) instead of a failed
 * page for every inbox. Every other read keeps the strict parser.
 */
export const OVERVIEW_TYPES: pg.CustomTypesConfig = (() => {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (text: string) => Number(text));
  return types;
})();

export function createPool(connection: Connection): pg.Pool {
  // Pipelined: a query is sent while the one before it is still running, so
  // a BEGIN and the statement after it cost one round trip, not two. Every
  // query still gets its own answer, in order (each ends with its own Sync).
  const pool = new pg.Pool({ ...connection.config, application_name: 'vigil', pipeline: true });
  // An idle connection the server drops must not crash the process: the
  // next query on the pool simply opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Issues pipelined queries with the socket corked, so they leave in one
 * write: one system call here, one wake-up of the server process there.
 * (Each query corks and uncorks on its own; corking is counted.)
 */
export function inOneWrite<T>(client: pg.PoolClient, issue: () => T): T {
  const socket = client.connection.stream;
  socket.cork();
  try {
    return issue();
  } finally {
    socket.uncork();
  }
}

/** The wake-up hints a transaction left on this connection, sent (functions/ingest.sql, vigil_wake). */
export function wakeQuery(channel: string): pg.QueryConfig {
  return { name: 'vigil_wake', text: 'SELECT vigil_wake($1)', values: [channel] };
}

/**
 * COMMIT, with the wake-up hints behind it in the same write when `wake`:
 * they go out only once the transaction has committed. A lost hint fails
 * nothing; a failed COMMIT throws.
 */
export async function commitThenWake(client: pg.PoolClient, channel: string, wake: boolean): Promise<void> {
  const [commit] = await Promise.allSettled(inOneWrite(client, () => [client.query('COMMIT'), ...(wake ? [client.query(wakeQuery(channel))] : [])]));
  if (commit!.status === 'rejected') throw commit!.reason;
}

/** `"name"`: for the few identifiers (schema, channel) SQL parameters cannot carry. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
