/**
 * R9 across a crash: which channels took a batch is in the store, not in a
 * dispatcher's memory. A real dispatching process sends a reply to two
 * channels (local receivers on 127.0.0.1); one takes it, the other holds the
 * request; the process is SIGKILLed then. A new dispatching process sends
 * the batch to the second channel only, under the same webhook-id.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openStore, type StoreOptions } from '../../src/index.js';
import { Child, ProcessPool, REPO_ROOT } from '../fixtures/child-processes.js';
import { CHANNEL_SECRET, waitFor } from '../fixtures/service-process.js';

const pool = new ProcessPool();
const children: Child[] = [];
const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await pool.cleanup();
});

interface Endpoint {
  url: string;
  /** The webhook-id of each request, in arrival order. */
  ids: string[];
  /** true: answer 200 at once; false: hold the request, never answering. */
  accept: boolean;
}

async function endpoint(accept: boolean): Promise<Endpoint> {
  const held: ServerResponse[] = [];
  const state: Endpoint = { url: '', ids: [], accept };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.ids.push(String(req.headers['webhook-id']));
      if (state.accept) res.writeHead(200).end('{}');
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

function startDispatcher(dir: string, options: StoreOptions, channels: Record<string, string>): Child {
  const config = { dir, options, channels, secret: CHANNEL_SECRET };
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/dispatcher-process.ts', JSON.stringify(config)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const child = new Child(proc, `dispatcher (pid ${proc.pid})`);
  children.push(child);
  return child;
}

it('a dispatcher SIGKILLed after one of two channels took a batch: the next dispatcher sends it only to the other, under the same webhook-id', async () => {
  const dir = pool.tempDir('vigil-dispatch-crash-');
  // Reservations last 4 s (sends are cut at 1 s): the second process waits that long for the first one's batch.
  const options: StoreOptions = { outboxGapMs: 0, leaseTtlMs: 4_000 };
  const seed = await openStore(`sqlite:${dir}`, options);
  const inbox = seed.inbox('crash');
  const gen = (await inbox.acquire('W'))!;
  expect(await inbox.finish('W', gen, [], { messages: ['your order shipped'] })).toBe(true);
  await seed.close();

  const took = await endpoint(true);
  const slow = await endpoint(false);
  const channels = { took: took.url, slow: slow.url };
  const first = startDispatcher(dir, options, channels);
  await first.next('ready');
  await waitFor('both channels to have the batch', () => took.ids.length === 1 && slow.ids.length === 1);
  // The store has it that 'took' took the batch (recorded as it answered, while 'slow' still held it).
  const file = new Database(join(dir, 'crash.db'), { readonly: true, fileMustExist: true });
  try {
    await waitFor('the progress record', () => (file.prepare('SELECT progress FROM outbox_progress').pluck().get() as string | undefined)?.includes('"took"'));
  } finally {
    file.close();
  }
  first.kill();
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

  slow.accept = true;
  const second = startDispatcher(dir, options, channels);
  await second.next('ready');
  await waitFor('the batch sent again to the slow channel', () => slow.ids.length === 2, 20_000);
  const store = await openStore(`sqlite:${dir}`, options);
  try {
    await waitFor('the batch recorded as sent', async () => (await store.inbox('crash').stats()).outbox.sent === 1);
  } finally {
    await store.close();
  }
  expect(took.ids).toEqual(['crash:1-1']);
  expect(slow.ids).toEqual(['crash:1-1', 'crash:1-1']);
});
