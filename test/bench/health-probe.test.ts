/**
 * The service benchmark's health probe (bench/health-probe.ts) against a
 * real server in a child process on 127.0.0.1 whose event loop is blocked
 * on purpose: the probe's latencies must show the block, and probing must
 * stop with the load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { probeDuring } from '../../bench/health-probe.js';

// GET /block busy-waits 100 ms, as a commit on the event loop blocks it for its fsync; every request is counted.
const SERVER = `
let served = 0;
require('node:http').createServer((req, res) => {
  served++;
  if (req.url === '/block') { const until = Date.now() + 100; while (Date.now() < until); }
  if (req.url === '/served') return res.end(String(served));
  res.writeHead(req.url === '/healthz' || req.url === '/block' ? 200 : 404).end('{"ok":true}');
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  child = undefined;
});

async function startServer(): Promise<string> {
  child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  return `http://127.0.0.1:${port.toString().trim()}`;
}

function fetchText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.once('end', () => resolve(text));
    }).once('error', reject);
  });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('probeDuring', () => {
  it("times each probe, and the probes that wait on a blocked event loop take the block's length", async () => {
    const base = await startServer();
    const { value, latenciesMs } = await probeDuring(`${base}/healthz`, 5, async () => {
      await pause(50);
      await fetchText(`${base}/block`);
      await pause(50);
      return 'loaded';
    });
    expect(value).toBe('loaded');
    expect(latenciesMs.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...latenciesMs)).toBeGreaterThanOrEqual(50);
    expect(Math.min(...latenciesMs)).toBeLessThan(50);
  });

  it('stops probing once the load settles, also when it fails', async () => {
    const base = await startServer();
    const load = async (): Promise<never> => {
      await pause(50);
      throw new Error('load failed');
    };
    await expect(probeDuring(`${base}/healthz`, 5, load)).rejects.toThrow('load failed');
    const served = Number(await fetchText(`${base}/served`));
    await pause(60);
    expect(Number(await fetchText(`${base}/served`))).toBe(served + 1);
    expect(served).toBeGreaterThan(2);
  });
});

describe('probeDuring, when the server answers the probe with an error', () => {
  it('fails with what the server answered once the load is done, and leaves no rejection unhandled meanwhile', async () => {
    const base = await startServer();
    let loaded = false;
    const load = async (): Promise<void> => {
      await pause(100);
      loaded = true;
    };
    await expect(probeDuring(`${base}/missing`, 5, load)).rejects.toThrow(`${base}/missing answered 404`);
    expect(loaded).toBe(true);
  });
});
