/** What the routes share: the deps, with webhook sources built once at startup (app.ts, createHttpContext). */
import type { InboxRouter } from '../agent/agent.js';
import type { Clock } from '../clock.js';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import { logValue } from '../observability/log-value.js';
import type { RuntimeEvents } from '../events.js';
import type { ApprovalAnswer, ApprovalOutcome, Inbox, InboxLimits, NewEvent, Store } from '../store/contract.js';
import type { Context } from 'hono';
import { errorBody, fromStoreError, HttpError } from './http-error.js';
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
  /** Each inbox's quotas on what arrives from outside; an inbox's own `limits` setting overrides each. */
  limits: InboxLimits;
  sources: Map<string, WebhookSource>;
  /** undefined: the bearer-token API is disabled. */
  token: string | undefined;
  /** '' : approval links are disabled (an empty HMAC key is a key anyone has). */
  linkSecret: string;
  /** The origin of the publicUrl, where people's browsers say forms come from. */
  readonly publicOrigin: string;
  /** Wrong tokens per client address, for the API and the dashboard's sign-in alike. */
  lockout: WrongTokenLockout;
  /** Whether writes fail, the store's or an inbox's (for /healthz and the dashboard). */
  writes: WriteHealth;
  /** The agent's route(), for deliveries to POST /hooks/<source> of a source without inbox.from. */
  route: InboxRouter | undefined;
  /** The configured channels' names (the dashboard offers them for an inbox's contacts). */
  channels: readonly string[];
}

/** What the error handlers say of a request in the log: the path cut to a bound (a sender picks its length). */
export interface RequestFacts {
  method: string;
  path: string;
  ip: string;
}

export function requestFacts(c: Context): RequestFacts {
  return { method: logValue(c.req.method), path: logValue(c.req.path), ip: clientAddress(c) };
}

/**
 * What every error handler asks first. A client that went away mid-body is
 * a debug line and gets no real answer ('gone'). A write (a POST) the store
 * refused as unavailable marks writes as failing for /healthz.
 */
export function noteFailure(ctx: HttpContext, request: RequestFacts, error: unknown): 'gone' | null {
  if (error instanceof ClientWentAway) {
    ctx.logger.debug({ method: request.method, path: request.path, ip: request.ip }, error.message);
    return 'gone';
  }
  // A write not noted where it happened (ingest and approvals are, with their inbox): the store's, as far as we know.
  if (request.method === 'POST') ctx.writes.failed(null, error);
  return null;
}

/** An answer in JSON: a status, its body and any headers (Retry-After). */
export interface JsonAnswer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

/**
 * The JSON answer to an error of the API and the webhook routes: a refusal
 * (an HttpError, or a store error that is the client's or passes) with its
 * code, or 500 with no detail, logged with its stack: the client learns only
 * that it was our fault.
 */
export function errorAnswer(ctx: HttpContext, request: RequestFacts, error: unknown): JsonAnswer {
  if (noteFailure(ctx, request, error) === 'gone') return { status: 400, json: errorBody(new HttpError(400, 'client_closed', 'the body was not sent whole')) };
  const refusal = error instanceof HttpError ? error : fromStoreError(error);
  if (refusal !== null) {
    // A busy, full or closing store is ours to see, not only the client's.
    if (refusal.status >= 500) ctx.logger.warn({ err: error, method: request.method, path: request.path }, 'store unavailable: %s', refusal.code);
    return { status: refusal.status, json: errorBody(refusal), headers: refusal.headers };
  }
  ctx.logger.error({ err: error, method: request.method, path: request.path }, 'request failed');
  return { status: 500, json: errorBody(new HttpError(500, 'internal', 'internal error')) };
}

/**
 * The ack both ingestion routes give, once the event is durable: 202 new,
 * 200 duplicate. The store reports it (event:ingested), which the metrics
 * and the log hear.
 */
export async function ingestEvent(ctx: HttpContext, inbox: Inbox, event: NewEvent): Promise<Response> {
  const { status, json } = await ingestAck(ctx, inbox, event);
  return Response.json(json, { status });
}

/** ingestEvent's answer as data, for a route that writes its own response (hooks-on-node.ts). */
export async function ingestAck(ctx: HttpContext, inbox: Inbox, event: NewEvent): Promise<{ status: 200 | 202; json: unknown }> {
  // From outside: within the inbox's quota, or 429 (http-error.ts) with nothing stored.
  const stored = await written(ctx, inbox.id, inbox.ingest(event, { quota: ctx.limits }));
  return stored ? { status: 202, json: STORED } : { status: 200, json: DUPLICATE };
}

const STORED = { stored: true };
const DUPLICATE = { stored: false, duplicate: true };

/** A write to one inbox, its outcome told to the write health (write-health.ts) with the inbox it was for. */
export async function written<T>(ctx: HttpContext, inboxId: string, write: Promise<T>): Promise<T> {
  let value: T;
  try {
    value = await write;
  } catch (error) {
    ctx.writes.failed(inboxId, error);
    throw error;
  }
  ctx.writes.succeeded(inboxId);
  return value;
}

/** Answers through the store, which decides (R8); 404 for an approval never requested. */
export async function answerApproval(ctx: HttpContext, inboxId: string, approvalId: string, answer: ApprovalAnswer): Promise<Exclude<ApprovalOutcome, 'unknown'>> {
  const outcome = await written(ctx, inboxId, ctx.store.inbox(inboxId).answerApproval(approvalId, answer));
  if (outcome === 'unknown') throw new HttpError(404, 'unknown_approval', `no approval ${JSON.stringify(approvalId)} was requested in this inbox`);
  return outcome;
}
