/**
 * The service benchmark's durable floor (bench/service-server.ts) stores a
 * turn's deliveries in one multi-row INSERT OR IGNORE and answers each from
 * what that statement stored: 202 for a new delivery, 200 for a duplicate,
 * also when duplicates arrive together in one group commit.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcess } from '../../bench/service-children.js';

const SECRET = 'a-durable-floor-test-secret-of-40-chars!';

async function deliver(url: string, id: string): Promise<number> {
  const body = JSON.stringify({ action: 'opened', delivery: id });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(`${url}/hooks/bench/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
  await response.text();
  return response.status;
}

describe('the durable floor of the service benchmark', () => {
  let dir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-durable-floor-'));
    server = await ServerProcess.start(['durable', dir, SECRET]);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 202 to a new delivery and 200 to the same delivery again', async () => {
    expect(await deliver(server.url, 'one')).toBe(202);
    expect(await deliver(server.url, 'one')).toBe(200);
  });

  it('answers each of deliveries sent together from what was stored: one 202 per new id', async () => {
    const ids = ['a', 'b', 'a', 'c', 'b', 'one'];
    const statuses = await Promise.all(ids.map((id) => deliver(server.url, id)));
    const accepted = ids.filter((_, i) => statuses[i] === 202).sort();
    expect(accepted).toEqual(['a', 'b', 'c']);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
  });
});
