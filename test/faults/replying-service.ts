/**
 * What the fault tests run: a real `vigil serve` on `store`, with the
 * blocking test agent (it answers `reply to <key>` once a `release` file
 * exists in `markers`), a local webhook receiver as its channel, short
 * leases and retries, and helpers to send a message and read the replies.
 */
import { join } from 'node:path';
import { CHANNEL_SECRET, REPO_ROOT, type ServeProcess, type ServiceHarness } from '../fixtures/service-process.js';

export interface ReplyingService {
  serve: ServeProcess;
  url: string;
  /** POST /inboxes/<inbox>/messages with `key` as the Idempotency-Key (and the text, unless given). */
  post(inbox: string, key: string, text?: string): Promise<Response>;
  /** Every reply the channel received, one per message (batches split). */
  replies(): string[];
}

export async function startReplyingService(harness: ServiceHarness, root: string, store: string, markers: string): Promise<ReplyingService> {
  const token = 'fault-test-token-0123456789abcdef0123';
  const receiver = await harness.receiver();
  const config = harness.writeConfig(root, {
    store,
    port: 0,
    token,
    agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    engine: { outboxGapMs: 0, leaseTtlMs: 3_000, retryBackoff: { baseMs: 100, maxMs: 500 } },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
  const url = await serve.url();
  return {
    serve,
    url,
    post: (inbox, key, text = key) =>
      fetch(`${url}/inboxes/${inbox}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text }),
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      }),
    replies: () => receiver.received.flatMap((r) => (JSON.parse(r.body) as { body: string }).body.split('\n\n')),
  };
}
