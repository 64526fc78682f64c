/**
 * What a server's other routes feel while it takes load: `GET /healthz`,
 * one request at a time on a keep-alive connection of its own, a pause
 * between them, for as long as the load runs. A webhook's own latency
 * includes its commit; a health check waits only for the event loop, so
 * this is how long the loop is kept from anything else (commits on the
 * event loop block it for the length of each fsync).
 */
import { Agent, get } from 'node:http';

export interface ProbeResult<T> {
  /** What the load returned. */
  value: T;
  /** Each probe's time, request written → response read, in ms, in the order taken. */
  latenciesMs: number[];
}

function probeOnce(url: string, agent: Agent): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode === 200 ? resolve(performance.now() - start) : reject(new Error(`${url} answered ${res.statusCode}`))));
      res.once('error', reject);
    }).once('error', reject);
  });
}

/** Runs `load` and probes `url` every `pauseMs` until it settles; the probe in flight then is waited for. */
export async function probeDuring<T>(url: string, pauseMs: number, load: () => Promise<T>): Promise<ProbeResult<T>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latenciesMs: number[] = [];
  let loading = true;
  const probing = (async () => {
    while (loading) {
      latenciesMs.push(await probeOnce(url, agent));
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  // A probe that fails ends the probing at once, but is reported after the load, by the await below.
  probing.catch(() => undefined);
  try {
    const value = await load();
    return { value, latenciesMs };
  } finally {
    loading = false;
    await probing.finally(() => agent.destroy());
  }
}
