/**
 * The built-in demo agent: what `npm start` and a `vigil serve` whose
 * config names no `agent` run, with no API key (claude-demo-agent.ts is
 * the same demo with Claude deciding).
 *
 * - A chat message (source "chat", payload { text }) gets a reply.
 * - "refund order 42" asks for approval first (one hour), with an URGENT
 *   message carrying the one-tap link; the refund happens only when the
 *   ('approval', id) event comes back with "yes", exactly once, keyed by
 *   `ctx.idempotencyKey` in a refunds ledger that stands in for a payments
 *   API (a real one, like Stripe's, dedupes on that key the same way).
 * - A daily digest timer, added on the first run, says how many days it
 *   covers (a digest that fires after an outage covers the missed days too)
 *   and how many events are dead.
 * - A webhook from any other source is acknowledged in one line.
 * A run with nothing to say returns { nothing: true }: no message goes out.
 */
import { defineAgent, type Agent, type AgentContext } from '../agent/agent.js';
import type { ClaimedEvent, OutboxMessage } from '../store/contract.js';
import { RefundLedger } from './refund-ledger.js';

const HOUR = 3_600_000;
export const DIGEST_TIMER_ID = 'daily-digest';
/** The memory key that says this inbox's digest timer was scheduled. */
export const DIGEST_SCHEDULED = 'example:digest-scheduled';
const REFUND_PATTERN = /\brefund\s+(?:order\s+)?#?([A-Za-z0-9][A-Za-z0-9_-]{0,63})\b/i;

export interface DemoAgentOptions {
  /** The refunds ledger: one JSON line per refund performed. */
  refundsFile: string;
  /** When the digest fires (cron, in `digestTz`). Default: 09:00 every day. */
  digestCron?: string;
  digestTz?: string;
}

interface RefundAction {
  type: 'refund';
  summary: string;
  order: string;
}

export function createDemoAgent(options: DemoAgentOptions): Agent {
  const ledger = new RefundLedger(options.refundsFile);
  return defineAgent({
    name: 'example',
    async run(ctx) {
      const hasDigest = ctx.events.some(isDigest);
      // Not ctx.stats() on every run: it counts every event the inbox ever
      // had, a cost that grows with its history. A note in memory (saved
      // with this run's finish) says the digest is scheduled; the digest
      // alone counts the dead events, once a day.
      if ((await ctx.memory.get(DIGEST_SCHEDULED)) !== true) {
        // Schedule it only where there is none, because re-adding a cron
        // timer would move its next occurrence. (An inbox from before the
        // note has one: this reads its stats once, then never again.) Once
        // noted, a digest an operator removes stays removed.
        if (!hasDigest && (await ctx.stats()).timers === 0) {
          await ctx.addTimer({
            id: DIGEST_TIMER_ID,
            cron: options.digestCron ?? '0 9 * * *',
            tz: options.digestTz ?? 'UTC',
            payload: { task: 'daily digest' },
          });
        }
        await ctx.memory.set(DIGEST_SCHEDULED, true);
      }
      const dead = hasDigest ? (await ctx.stats()).events.dead : 0;
      const messages: OutboxMessage[] = [];
      for (const event of ctx.events) {
        const message = await handle(ctx, event, dead, ledger);
        if (message !== null) messages.push(message);
      }
      return messages.length === 0 ? { nothing: true } : { messages };
    },
  });
}

async function handle(ctx: AgentContext, event: ClaimedEvent, dead: number, ledger: RefundLedger): Promise<OutboxMessage | null> {
  const payload = isRecord(event.payload) ? event.payload : {};
  switch (event.source) {
    case 'chat':
      return chat(ctx, typeof payload.text === 'string' ? payload.text.trim() : '');
    case 'timer':
      return isDigest(event) ? digest(payload, dead) : null;
    case 'approval':
      return approval(ctx, event, payload, ledger);
    default:
      return webhook(event, payload);
  }
}

async function chat(ctx: AgentContext, text: string): Promise<OutboxMessage | null> {
  if (text === '') return null;
  const refund = REFUND_PATTERN.exec(text);
  if (refund === null) return `You said: "${text}". (Try "refund order 42" to see an approval.)`;
  const order = refund[1]!;
  const approvalId = `refund-${order}`;
  // `summary` is what the one-tap confirm page shows the person deciding.
  const action: RefundAction = { type: 'refund', order, summary: `Refund order ${order}` };
  const { link } = await ctx.requestApproval({ id: approvalId, expiresInMs: HOUR, action });
  const how = link ?? `vigil approve ${ctx.inboxId} ${approvalId} yes`;
  return { body: `URGENT: approve a refund of order ${order}? This expires in 1 hour. ${how}`, urgent: true };
}

function digest(payload: Record<string, unknown>, dead: number): string {
  const skipped = typeof payload.skipped === 'number' ? payload.skipped : 0;
  const days = skipped + 1;
  const deadNote = dead === 0 ? 'no dead events' : `${dead} dead event${dead === 1 ? '' : 's'} (see: vigil events <inbox> --status dead)`;
  return `Daily digest: covers ${days} day${days === 1 ? '' : 's'}; ${deadNote}.`;
}

async function approval(ctx: AgentContext, event: ClaimedEvent, payload: Record<string, unknown>, ledger: RefundLedger): Promise<OutboxMessage | null> {
  const approvalId = event.sourceId;
  const action = payload.action;
  if (!isRecord(action) || action.type !== 'refund' || typeof action.order !== 'string') return null;
  const order = action.order;
  if (payload.answer === 'yes') {
    // Checked before acting: a run whose lease is gone must not touch money.
    ctx.signal.throwIfAborted();
    // Keyed by this approval event alone: a retry claims it on its own (R4).
    const idempotencyKey = ctx.idempotencyKey(`refund:${approvalId}`, event);
    await ledger.refund({ idempotencyKey, inboxId: ctx.inboxId, order, approvalId, at: ctx.now });
    return `Refunded order ${order}.`;
  }
  const why = payload.answer === 'expired' ? 'the approval expired' : 'you said no';
  return `Did not refund order ${order}: ${why}.`;
}

function webhook(event: ClaimedEvent, payload: Record<string, unknown>): string | null {
  // GitHub's ping on a new hook says nothing worth a message.
  if (typeof payload.zen === 'string') return null;
  const what = [payload.action, payload.type, payload.event].find((value) => typeof value === 'string') as string | undefined;
  const text = typeof payload.text === 'string' ? `: "${payload.text}"` : '';
  return `Got a ${event.source} webhook${what === undefined ? '' : ` (${what})`}${text}, delivery ${event.sourceId}.`;
}

function isDigest(event: ClaimedEvent): boolean {
  return event.source === 'timer' && event.sourceId.startsWith(`${DIGEST_TIMER_ID}@`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
