/** What the routes share: the deps, with secrets resolved and verifiers built once at startup. */
import type { Clock } from '../clock.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import type { RuntimeEvents } from '../events.js';
import type { ApprovalAnswer, ApprovalOutcome, Inbox, NewEvent, Store } from '../store/contract.js';
import { HttpError } from './http-error.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import type { WebhookVerifier } from './webhooks/index.js';

export interface HttpContext {
  store: Store;
  metrics: Metrics;
  logger: Logger;
  events: RuntimeEvents;
  now: Clock;
  maxBodyBytes: number;
  verifiers: Map<string, WebhookVerifier>;
  /** undefined: the bearer-token API is disabled. */
  token: string | undefined;
  /** '' : approval links are disabled (an empty HMAC key is a key anyone has). */
  linkSecret: string;
  /** Wrong tokens per client address, for the API and the dashboard's sign-in alike. */
  signIns: SignInThrottle;
}

/**
 * The ack both ingestion routes give, once the event is durable: 202 new,
 * 200 duplicate. The store reports it (event:ingested), which the metrics
 * and the log hear.
 */
export async function ingestEvent(inbox: Inbox, event: NewEvent): Promise<Response> {
  const stored = await inbox.ingest(event);
  return stored ? Response.json({ stored: true }, { status: 202 }) : Response.json({ stored: false, duplicate: true }, { status: 200 });
}

/** Answers through the store, which decides (R8); 404 for an approval never requested. */
export async function answerApproval(ctx: HttpContext, inboxId: string, approvalId: string, answer: ApprovalAnswer): Promise<Exclude<ApprovalOutcome, 'unknown'>> {
  const outcome = await ctx.store.inbox(inboxId).answerApproval(approvalId, answer);
  if (outcome === 'unknown') throw new HttpError(404, 'unknown_approval', `no approval ${JSON.stringify(approvalId)} was requested in this inbox`);
  return outcome;
}
