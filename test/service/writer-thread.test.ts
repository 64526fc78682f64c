/**
 * `vigil serve` commits ingests on the SQLite writer thread (engine.writerThread,
 * on by default): a delivery waiting for its inbox file, here locked by
 * another writer, leaves the process answering other requests, and is
 * answered 202 once its commit is made. Before the thread, the commit ran
 * on the event loop, and SQLite's busy wait held the whole service.
 */
import Database from 'better-sqlite3';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const TOKEN = 'writer-thread-token-0123456789abcdef';
const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it('a message waiting for its locked inbox file does not hold up /healthz; it is answered 202 and stored when the lock goes', async () => {
  const dir = harness.tempDir();
  const data = join(dir, 'data');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/quiet-agent.ts'),
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config);
  const url = await serve.url();
  const send = (key: string) =>
    fetch(`${url}/inboxes/alice/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: key }),
      headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
    });
  expect((await send('m1')).status).toBe(202);
  /** POSTs a message; `sent` is called once its whole request is written to the socket. */
  const post = (key: string, sent: () => void) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ text: key });
      const request = httpRequest(`${url}/inboxes/alice/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      request.on('finish', sent);
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', reject);
      request.end(body);
    });
  // The first message is run and done, so no worker of the service touches the file while it is locked.
  const store = await openStore(`sqlite:${data}`);
  try {
    await waitFor('m1 to be done', async () => (await store.inbox('alice').stats()).events.done === 1);
  } finally {
    await store.close();
  }

  const other = new Database(join(data, 'alice.db'));
  try {
    other.exec('BEGIN IMMEDIATE'); // another writer holds the file (busyTimeoutMs is 5 s)
    let answered = false;
    let waiting: Promise<number> = Promise.resolve(0);
    // m2 is on the wire before the first health check.
    await new Promise<void>((sent) => {
      waiting = post('m2', sent).then((status) => {
        answered = true;
        return status;
      });
    });
    // The service answers while m2 waits for the lock: three health checks, one after another.
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(answered).toBe(false);
    other.exec('ROLLBACK');
    expect(await waiting).toBe(202);
  } finally {
    other.close();
  }
  const after = await openStore(`sqlite:${data}`);
  try {
    expect((await after.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['m1', 'm2']);
  } finally {
    await after.close();
  }
});
