/** What the routes share: the deps, with secrets resolved and webhook sources built once at startup. */
import type { InboxRouter } from '../agent/agent.js';
import type { Clock } from '../clock.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { RuntimeEvents } from '../events.js';
import type { ApprovalAnswer, ApprovalOutcome, Inbox, NewEvent, Store } from '../store/contract.js';
import type { Context } from 'hono';
import { isVigilError } from '../errors.js';
import { HttpError } from './http-error.js';
import { ClientWentAway } from './read-body.js';
import type { WriteHealth } from './write-health.js';
import { clientAddress } from './wrong-token-lockout.js';
import type { WrongTokenLockout } from './wrong-token-lockout.js';
import type { WebhookSource } from './webhooks/index.js';

export interface HttpContext {
  store: Store;
  metrics: Metrics;
  logger: Logger;
  events: RuntimeEvents;
  now: Clock;
  maxBodyBytes: number;
  sources: Map<string, WebhookSource>;
  /** undefined: the bearer-token API is disabled. */
  token: string | undefined;
  /** '' : approval links are disabled (an empty HMAC key is a key anyone has). */
  linkSecret: string;
  /** The origin of the configured publicUrl, where people's browsers say forms come from. */
  publicOrigin: string;
  /** Wrong tokens per client address, for the API and the dashboard's sign-in alike. */
  lockout: WrongTokenLockout;
  /** Whether writes are failing (for /healthz). */
  writes: WriteHealth;
  /** The agent's route(), for deliveries to POST /hooks/<source> of a source without inbox.from. */
  route: InboxRouter | undefined;
  /** The configured channels' names (the dashboard offers them for an inbox's contacts). */
  channels: readonly string[];
}

/**
 * What every error handler asks first. A client that went away mid-body is
 * a debug line and gets no real answer ('gone'). A write (a POST) the store
 * refused as unavailable marks writes as failing for /healthz.
 */
export function noteFailure(ctx: HttpContext, c: Context, error: unknown): 'gone' | null {
  if (error instanceof ClientWentAway) {
    ctx.logger.debug({ method: c.req.method, path: c.req.path, ip: clientAddress(c) }, error.message);
    return 'gone';
  }
  if (c.req.method === 'POST' && isVigilError(error, 'store_unavailable')) ctx.writes.failed(error.message);
  return null;
}

/**
 * The ack both ingestion routes give, once the event is durable: 202 new,
 * 200 duplicate. The store reports it (event:ingested), which the metrics
 * and the log hear.
 */
export async function ingestEvent(ctx: HttpContext, inbox: Inbox, event: NewEvent): Promise<Response> {
  const stored = await inbox.ingest(event);
  ctx.writes.succeeded();
  return stored ? Response.json({ stored: true }, { status: 202 }) : Response.json({ stored: false, duplicate: true }, { status: 200 });
}

/** Answers through the store, which decides (R8); 404 for an approval never requested. */
export async function answerApproval(ctx: HttpContext, inboxId: string, approvalId: string, answer: ApprovalAnswer): Promise<Exclude<ApprovalOutcome, 'unknown'>> {
  const outcome = await ctx.store.inbox(inboxId).answerApproval(approvalId, answer);
  ctx.writes.succeeded();
  if (outcome === 'unknown') throw new HttpError(404, 'unknown_approval', `no approval ${JSON.stringify(approvalId)} was requested in this inbox`);
  return outcome;
}
