/**
 * Vitest globalSetup of the `postgres` project: gives its test files a
 * server URL as `inject('postgresUrl')`. With DATABASE_URL set, that server
 * is used (its user needs CREATEDB: each test file makes its own database);
 * otherwise a throwaway server is started for the run and stopped after it.
 */
import type { TestProject } from 'vitest/node';
import { startThrowawayPostgres } from './throwaway-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresUrl', external);
    return async () => undefined;
  }
  // Durability is not under test here (no test crashes the server): skip the fsyncs.
  const server = await startThrowawayPostgres({ fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' });
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
