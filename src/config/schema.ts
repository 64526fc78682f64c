/**
 * The `vigil serve` configuration, validated with zod. A bad field is a
 * clear error naming it (`sources.github.secret: Required`), never a crash
 * halfway through starting.
 */
import { z } from 'zod';

/** A secret given inline or read from the environment: "env:GITHUB_SECRET". */
const secret = z.string().min(1, 'must not be empty');

/** Sources Vigil itself writes: timers, approvals, and chat messages from the API. */
export const RESERVED_SOURCES = ['approval', 'timer', 'chat'];

/**
 * A source whose senders choose the secret (GitHub, generic HMAC) may have a
 * secret per inbox, derived from a master secret and the inbox id
 * (src/http/webhooks/source-secret.ts); `vigil secret <inbox> <source>`
 * prints the one to give each user. Providers that issue their own secret
 * (Stripe, Slack, Standard Webhooks senders) take it as it is.
 */
const secretOrDerived = z.union([secret, z.object({ derive: secret }).strict()], {
  error: (issue) => (issue.input === undefined ? 'required' : 'a secret ("…" or "env:VAR"), or { "derive": "env:MASTER" } for a secret per inbox'),
});

/**
 * Where a delivery to `POST /hooks/<source>` goes: the inbox id is `prefix`
 * + the value at the dotted path `from` in the verified body (a JSON body,
 * or the fields of a form such as Slack's slash commands).
 */
const routingSchema = z
  .object({
    from: z.string().regex(/^[^.]+(\.[^.]+)*$/, 'a dotted path into the body, like "sender.login"'),
    prefix: z
      .string()
      .regex(/^([A-Za-z0-9][A-Za-z0-9._-]{0,63})?$/, 'at most 64 of [A-Za-z0-9._-], starting with a letter or digit (it begins an inbox id)')
      .default(''),
  })
  .strict()
  .optional();

export const sourceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('github'), secret: secretOrDerived, inbox: routingSchema }).strict(),
  z.object({ type: z.literal('stripe'), secret, toleranceSeconds: z.number().int().positive().default(300), inbox: routingSchema }).strict(),
  z.object({ type: z.literal('standard-webhooks'), secret, toleranceSeconds: z.number().int().positive().default(300), inbox: routingSchema }).strict(),
  z.object({ type: z.literal('slack'), secret, toleranceSeconds: z.number().int().positive().default(300), inbox: routingSchema }).strict(),
  z
    .object({
      type: z.literal('hmac'),
      secret: secretOrDerived,
      /** Header carrying the hex HMAC-SHA256 of the raw body (an optional `sha256=` prefix is accepted). */
      signatureHeader: z.string().min(1).default('x-signature'),
      /** Header carrying the sender's unique delivery id: the dedupe key. */
      keyHeader: z.string().min(1).default('x-delivery-id'),
      inbox: routingSchema,
    })
    .strict(),
]);

/**
 * A routed source's inbox is known only from the body, after the signature
 * was checked: a secret per inbox cannot check it, so routing needs a fixed one.
 */
const checkedSourceSchema = sourceSchema.superRefine((source, ctx) => {
  if (source.inbox !== undefined && typeof source.secret !== 'string') {
    ctx.addIssue({ code: 'custom', path: ['inbox'], message: 'a routed source needs a fixed "secret": the inbox is known only after its signature is checked' });
  }
});

export const channelsSchema = z
  .object({
    console: z.object({}).strict().optional(),
    /** Outbound webhook signed with Standard Webhooks headers. */
    webhook: z.object({ url: z.string().url(), secret, timeoutMs: z.number().int().positive().default(10_000) }).strict().optional(),
    /** Slack incoming webhook. */
    slack: z.object({ url: z.string().url(), timeoutMs: z.number().int().positive().default(10_000) }).strict().optional(),
    /** Email over SMTP (nodemailer). */
    email: z
      .object({
        host: z.string().min(1),
        port: z.number().int().positive(),
        secure: z.boolean().default(false),
        user: z.string().optional(),
        password: z.string().optional(),
        from: z.string().min(3),
        to: z.string().min(3),
        subject: z.string().default('Update from your agent'),
        timeoutMs: z.number().int().positive().default(10_000),
      })
      .strict()
      .optional(),
  })
  .strict();

export const configSchema = z
  .object({
    store: z.string().regex(/^(sqlite:|postgres:\/\/|postgresql:\/\/)/, "use 'sqlite:<dir>' or 'postgres://…'").default('sqlite:./data'),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    /** Bearer token for the API (messages, approvals) and the dashboard. */
    token: secret.optional(),
    /** Signs one-tap approval links; defaults to the token. */
    linkSecret: secret.optional(),
    /** The address people reach this server at, for approval links. Default: http://host:port. */
    publicUrl: z.string().url().optional(),
    sources: z
      .record(
        z
          .string()
          .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'source names are lowercase [a-z0-9_-]')
          // The engine and the API store their own events under these sources: a webhook
          // named 'approval' could otherwise answer approvals, one named 'timer' fire timers.
          .refine((name) => !RESERVED_SOURCES.includes(name), { message: `${RESERVED_SOURCES.join(', ')} are reserved source names` }),
        checkedSourceSchema,
      )
      .default({}),
    /** Path to a module whose default export is an agent (defineAgent); default: the built-in example agent. */
    agent: z.string().min(1).optional(),
    channels: channelsSchema.default({ console: {} }),
    /**
     * How the outbox goes out (R9): `at-least-once` sends a batch again after
     * a crash or a failed channel (same batch id, for the receiver to dedupe);
     * `at-most-once` records it as sent first, so it is lost instead.
     */
    delivery: z.enum(['at-least-once', 'at-most-once']).default('at-least-once'),
    /** The credential proxy (`vigil proxy`) the agent's ctx.fetch goes through. */
    proxy: z.object({ url: z.string().url() }).strict().optional(),
    workers: z
      .object({
        concurrency: z.number().int().positive().default(8),
        runTimeoutMs: z.number().int().positive().default(60_000),
        pollIntervalMs: z.number().int().positive().default(5_000),
        shutdownGraceMs: z.number().int().nonnegative().default(10_000),
      })
      .strict()
      .default({ concurrency: 8, runTimeoutMs: 60_000, pollIntervalMs: 5_000, shutdownGraceMs: 10_000 }),
    /** Store options (leaseTtlMs, maxAttempts, outboxGapMs, retryBackoff, batchLimit, maxPayloadBytes). */
    engine: z
      .object({
        leaseTtlMs: z.number().int().positive().optional(),
        maxAttempts: z.number().int().positive().optional(),
        outboxGapMs: z.number().int().nonnegative().optional(),
        retryBackoff: z.object({ baseMs: z.number().int().nonnegative(), maxMs: z.number().int().nonnegative() }).partial().optional(),
        batchLimit: z.number().int().positive().optional(),
        maxPayloadBytes: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
    /** Largest webhook or message body accepted over HTTP. */
    maxBodyBytes: z.number().int().positive().default(1_048_576),
    log: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }).strict().default({ level: 'info' }),
  })
  .strict();

export type ServiceConfig = z.output<typeof configSchema>;
export type ServiceConfigInput = z.input<typeof configSchema>;
export type SourceConfig = z.output<typeof sourceSchema>;
/** A fixed secret, or a master to derive one per inbox from. */
export type SourceSecret = string | { derive: string };
export type ChannelsConfig = z.output<typeof channelsSchema>;
