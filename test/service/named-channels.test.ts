/**
 * Named channels with an audience, in a running service (startService on
 * 127.0.0.1, a real SQLite store, local receivers and a local fake of
 * Slack's API): two channels of one kind each carry every user's reply; a
 * channel that needs a contact sends only where the inbox has one under
 * its name; the operator's channel hears none of it, and messages for the
 * operator go to it alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/observability/logger.js';
import { startService } from '../../src/service/service.js';
import { startReceiver } from '../channels/receiver.js';
import { startFakeSlack } from '../../examples/fakes/slack.js';
import { defer } from '../runtime/helpers.js';

const TOKEN = 'api-token-for-tests-0123456789abcdef';
const WHSEC = 'whsec_' + Buffer.from('a-webhook-signing-key-of-32-bytes').toString('base64');
const AGENT = fileURLToPath(new URL('../fixtures/webhook-reply-agent.ts', import.meta.url));

describe('channels by name, for users and for the operator', () => {
  it("a user's reply goes to every users' channel (by contact where one is needed), never to the operator's; the operator's messages go only there", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-named-channels-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const [teamA, teamB, ops] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    const slack = await startFakeSlack({ token: 'xoxb-test', channels: ['D0ALICE'] });
    defer(() => slack.close());
    const config = parseConfig(
      {
        store: `sqlite:${dir}`,
        port: 0,
        token: TOKEN,
        agent: AGENT,
        channels: {
          'team-a': { type: 'webhook', url: `${teamA.url}/a`, secret: WHSEC },
          'team-b': { type: 'webhook', url: `${teamB.url}/b`, secret: WHSEC },
          'slack-dm': { type: 'slack', botToken: 'env:SLACK_BOT', apiUrl: slack.apiUrl },
          ops: { type: 'webhook', audience: 'operator', url: `${ops.url}/ops`, secret: WHSEC },
        },
        engine: { outboxGapMs: 0 },
        workers: { pollIntervalMs: 200 },
        log: { level: 'silent' },
      },
      'test config',
      { SLACK_BOT: 'xoxb-test' },
    );
    const service = await startService(config, { logger: createLogger({ level: 'silent' }) });
    defer(() => service.stop(1_000));
    await service.store.inbox('alice').updateSettings({ contacts: { 'slack-dm': 'D0ALICE' } });

    const failed = service.events.next('outbox:failed', (e) => e.inboxId === 'bob');
    const sent = Promise.all(['alice', 'bob'].map((inbox) => service.events.next('outbox:sent', (e) => e.inboxId === inbox)));
    for (const inbox of ['alice', 'bob']) {
      const answer = await fetch(`${service.url}/inboxes/${inbox}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': `${inbox}-1`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(answer.status).toBe(202);
    }
    await sent;
    const bodies = (receiver: typeof teamA): Array<{ inbox: string | null; body: string }> =>
      receiver.requests.map((request) => JSON.parse(request.body) as { inbox: string | null; body: string }).map(({ inbox, body }) => ({ inbox, body }));
    const inboxes = (receiver: typeof teamA): Array<string | null> => bodies(receiver).map((sent) => sent.inbox).sort();
    expect(inboxes(teamA)).toEqual(['alice', 'bob']);
    expect(inboxes(teamB)).toEqual(['alice', 'bob']);
    expect(teamA.requests.every((request) => request.path === '/a')).toBe(true);
    // The Slack bot reaches alice by her contacts.slack-dm; bob has none there: undeliverable, kept for a redrive.
    expect([...slack.posted.keys()]).toEqual(['D0ALICE']);
    expect((await failed).channel).toBe('slack-dm');
    expect(ops.requests).toEqual([]);

    const notice = await service.operator.send({ body: 'two inboxes replied', id: 'operator:test-1' });
    expect(notice).toEqual([{ channel: 'ops', result: { status: 'delivered' } }]);
    expect(bodies(ops)).toEqual([{ inbox: null, body: 'two inboxes replied' }]);
    expect(ops.requests[0]!.headers['webhook-id']).toBe('operator:test-1');
    expect(teamA.requests).toHaveLength(2);
    expect(teamB.requests).toHaveLength(2);
    expect(slack.posted.get('D0ALICE')).toHaveLength(1);
  });
});
