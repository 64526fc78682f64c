/** What the service benchmark's parent and its server children (service-server.ts) say over the IPC channel. */

export const BENCH_INBOX = 'bench';
export const BENCH_SOURCE = 'github';

/** `stop` closes the server (waiting for requests in flight), then answers with the final stats and exits. */
export type ToChild = { type: 'stats' } | { type: 'stop' };

export interface ServerStats {
  /** process.cpuUsage() of the server, user + system, µs. */
  cpuMicros: number;
  /** The Vigil server's store; null from the bare server. */
  store: StoreStats | null;
}

export interface StoreStats {
  /** Group commits of single ingests so far (SqliteStore.groupCommits): one write transaction each. */
  groupCommits: number;
  /** Events in the benchmark inbox (every status), through the store's API. */
  stored: number;
  /** Read back from the inbox's own connection; null before the first write. */
  journalMode: string | null;
  synchronous: number | null;
  sqlite: string | null;
}

export type FromChild = { type: 'ready'; url: string } | { type: 'stats'; stats: ServerStats } | { type: 'stopped'; stats: ServerStats };
