/**
 * What the retention benchmark stores: webhook deliveries as a GitHub App
 * receives them. The key is the delivery's id (`X-GitHub-Delivery`, a
 * GUID: random, so the dedupe index and the tombstones take their entries
 * in random order, as they do in production), the payload a trimmed
 * `issues` "opened" event of about 1 KB of JSON (the full event is 5-8 KB;
 * the fields kept are the ones an agent reads, with their real shapes).
 *
 * Both are functions of the event's number, so a run can offer every key a
 * second time without keeping a million strings.
 */
import { createHash } from 'node:crypto';
import type { NewEvent } from '../src/index.js';

export const SOURCE = 'github';

/** A GUID-shaped delivery id, the same for the same `i` in every run. */
export function deliveryId(i: number): string {
  const hex = createHash('sha1').update(`delivery-${i}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const WORDS = ['crash', 'webhook', 'retry', 'timeout', 'login', 'export', 'billing', 'flaky', 'upload', 'cache', 'token', 'docs'];

/** The `issues` event of delivery `i`, as stored (receivedAt only moves its timestamps). */
export function issueEvent(i: number, receivedAt: number): Record<string, unknown> {
  const number = 1_000 + i;
  const login = `contributor-${i % 4_999}`;
  const userId = 50_000_000 + (i % 4_999);
  const at = new Date(receivedAt).toISOString().slice(0, 19) + 'Z';
  const word = (k: number): string => WORDS[(i * 7 + k * 5) % WORDS.length]!;
  return {
    action: 'opened',
    issue: {
      url: `https://api.github.com/repos/acme/widgets/issues/${number}`,
      html_url: `https://github.com/acme/widgets/issues/${number}`,
      id: 2_400_000_000 + i,
      node_id: `I_kwDOK${(0x5f3a00 + i).toString(36).toUpperCase()}`,
      number,
      title: `${word(0)} ${word(1)} after upgrading to 4.${i % 20}.${i % 7}`,
      user: { login, id: userId, type: 'User', site_admin: false },
      labels: [{ id: 5_123_456_789 + (i % 4), name: i % 4 === 0 ? 'bug' : 'triage', color: i % 4 === 0 ? 'd73a4a' : 'ededed' }],
      state: 'open',
      locked: false,
      comments: 0,
      created_at: at,
      updated_at: at,
      author_association: 'NONE',
      body:
        `Steps to reproduce: run the ${word(2)} job twice with the same ${word(3)}. ` +
        `Expected one ${word(4)}, got two; the second shows "${word(5)} failed (code ${400 + (i % 100)})". ` +
        `Seen on build ${i.toString(16)} and again the next morning.`,
    },
    repository: {
      id: 712_345_678,
      node_id: 'R_kgDOKnXzVg',
      name: 'widgets',
      full_name: 'acme/widgets',
      private: false,
      owner: { login: 'acme', id: 91_234_567, type: 'Organization' },
      html_url: 'https://github.com/acme/widgets',
      default_branch: 'main',
    },
    sender: { login, id: userId, type: 'User' },
    installation: { id: 45_678_901, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDU2Nzg5MDE=' },
  };
}

/** Delivery `i` as the webhook route hands it to ingest. */
export function delivery(i: number, receivedAt: number): NewEvent {
  return { source: SOURCE, sourceId: deliveryId(i), payload: issueEvent(i, receivedAt) };
}
