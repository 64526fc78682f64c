/**
 * The `vigil serve` configuration file, validated with zod. A bad field is a
 * clear error naming it (`sources.github.secret: Required`), never a crash
 * halfway through starting. resolve-config.ts then reads its secrets and
 * turns it into the typed ServiceConfig the service runs on.
 *
 * Every key carries its description (`.describe`): docs/configuration.md is
 * generated from this file (`npm run docs:config`), and a test fails when
 * the two disagree or a key has no description. Defaults come from the
 * layer that owns them (the store's, the runtime's, the channels'), never
 * written twice.
 */
import { z } from 'zod';
import { CHANNEL_DEFAULTS } from '../channels/channel.js';
import { sendsWithoutContact } from '../channels/create-channels.js';
import { RUNTIME_DEFAULTS } from '../runtime/defaults.js';
import { APPROVAL_REMINDER_SOURCE, BOUNDS, CHANNEL_NAME_PATTERN, DEFAULT_STORE_URL, LIMIT_DEFAULTS, MAX_BUDGET_USD, MAX_LIMIT, STORE_DEFAULTS, storeUrlProblem } from '../store/index.js';
import { SecretRef, type SecretKind } from './secrets.js';

/** A secret given inline or read from the environment ("env:GITHUB_SECRET"), read by resolve-config.ts as `kind` says. */
const secret = (kind: SecretKind = 'plain') =>
  z
    .string()
    .min(1, 'must not be empty')
    .transform((given) => new SecretRef(given, kind));
/**
 * A whole number from `min` (1 unless said) to `max`, with its default from
 * the layer that owns it. Every number has a maximum (BOUNDS, the store's
 * engine/validate/bounds.ts): a duration Node waits out with a timer
 * at most BOUNDS.maxTimerDelayMs, since setTimeout fires a longer one at once.
 */
const count = (fallback: number, what: string, max: number, min = 1) => z.number().int().min(min).max(max).default(fallback).describe(what);
/** A duration kept in the store's rows: at most BOUNDS.maxDurationMs (ten years). */
/** A price in USD per million tokens. */
const perMTok = z.number().nonnegative().max(1_000_000);

const storedDuration = () => z.number().int().nonnegative().max(BOUNDS.maxDurationMs);

/** A quota (contract/limits.ts): a whole number from 0 to the store's MAX_LIMIT, its default the store's. */
const limit = (fallback: number, what: string) => z.number().int().min(0).max(MAX_LIMIT).default(fallback).describe(what);
/** An amount of a budget (engine/validate/budget.ts): non-negative US dollars, at most MAX_BUDGET_USD. */
const usd = (what: string) => z.number().min(0).max(MAX_BUDGET_USD).optional().describe(what);

const SECRET_HINT = 'Inline, or "env:NAME" to read it from the environment at startup (a missing variable stops the service).';

/** Sources Vigil itself writes: timers, approvals and their reminders, and chat messages from the API. */
export const RESERVED_SOURCES = ['approval', 'timer', 'chat', APPROVAL_REMINDER_SOURCE];

const tolerance = z
  .number()
  .int()
  .positive()
  .max(BOUNDS.maxDurationMs / 1000)
  .default(300)
  .describe('How old a signed timestamp may be, in seconds, before the delivery is refused as a replay.');

/**
 * A source whose senders choose the secret (GitHub, generic HMAC) may have a
 * secret per inbox, derived from a master secret and the inbox id
 * (src/http/webhooks/source-secret.ts); `vigil secret <inbox> <source>`
 * prints the one to give each user. Providers that issue their own secret
 * (Stripe, Slack, Standard Webhooks senders) take it as it is.
 */
const secretOrDerived = (what: string) =>
  z
    .union([secret('long'), z.object({ derive: secret('long').describe(`The master secret each inbox's secret is derived from. ${SECRET_HINT}`) }).strict()], {
      error: (issue) => (issue.input === undefined ? 'required' : 'a secret ("…" or "env:VAR"), or { "derive": "env:MASTER" } for a secret per inbox'),
    })
    .describe(`${what} ${SECRET_HINT} Or \`{ "derive": "env:MASTER" }\`: a secret per inbox, derived from the master (\`vigil secret <inbox> <source>\` prints one).`);

/**
 * Where a delivery to `POST /hooks/<source>` goes: the inbox id is `prefix`
 * + the value at the dotted path `from` in the verified body (a JSON body,
 * or the fields of a form such as Slack's slash commands).
 */
const routingSchema = z
  .object({
    from: z
      .string()
      .regex(/^[^.]+(\.[^.]+)*$/, 'a dotted path into the body, like "sender.login"')
      .describe('The dotted path into the verified body (JSON, or a form\'s fields) whose value names the inbox, e.g. `sender.login`.'),
    prefix: z
      .string()
      .regex(/^([A-Za-z0-9][A-Za-z0-9._-]{0,63})?$/, 'at most 64 of [A-Za-z0-9._-], starting with a letter or digit (it begins an inbox id)')
      .default('')
      .describe('Put before the value to make the inbox id, e.g. `gh-`.'),
  })
  .strict()
  .optional()
  .describe('Route `POST /hooks/<source>` deliveries to the inbox the verified body names (422 `unroutable` when it names none).');

export const sourceSchema = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('github'), secret: secretOrDerived("The webhook's secret."), inbox: routingSchema })
    .strict()
    .describe('GitHub: HMAC-SHA256 of the body in `X-Hub-Signature-256`; the delivery id (`X-GitHub-Delivery`) is the event key.'),
  z
    .object({ type: z.literal('stripe'), secret: secret('long').describe(`The endpoint's signing secret (\`whsec_…\`). ${SECRET_HINT}`), toleranceSeconds: tolerance, inbox: routingSchema })
    .strict()
    .describe('Stripe: the `Stripe-Signature` header; the event id is the event key.'),
  z
    .object({
      type: z.literal('standard-webhooks'),
      secret: secret('long').describe(`The secret (\`whsec_…\`, base64). ${SECRET_HINT}`),
      toleranceSeconds: tolerance,
      inbox: routingSchema,
    })
    .strict()
    .describe('Standard Webhooks (Svix and others): `webhook-id`, `webhook-timestamp`, `webhook-signature`, or Svix\'s default `svix-id`, `svix-timestamp`, `svix-signature` (read first; the two sets must agree); the id is the event key.'),
  z
    .object({ type: z.literal('slack'), secret: secret('long').describe(`The app's signing secret. ${SECRET_HINT}`), toleranceSeconds: tolerance, inbox: routingSchema })
    .strict()
    .describe("Slack: `X-Slack-Signature` over the timestamp and body; the event's `event_id` (or an interaction's `trigger_id`) is the event key."),
  z
    .object({
      type: z.literal('hmac'),
      secret: secretOrDerived('The shared secret.'),
      signatureHeader: z
        .string()
        .min(1)
        .default('x-signature')
        .describe('The header carrying the hex HMAC-SHA256 of the raw body (an optional `sha256=` prefix is accepted).'),
      keyHeader: z.string().min(1).default('x-delivery-id').describe("The header carrying the sender's unique delivery id: the event key."),
      inbox: routingSchema,
    })
    .strict()
    .describe('Any sender that signs the body with HMAC-SHA256 and names each delivery in a header.'),
]);

const timeout = z.number().int().positive().max(BOUNDS.maxTimerDelayMs).default(CHANNEL_DEFAULTS.timeoutMs).describe('How long one delivery may take, in milliseconds.');

/**
 * A routed source's inbox is known only from the body, after the signature
 * was checked: a secret per inbox cannot check it, so routing needs a fixed one.
 */
const checkedSourceSchema = sourceSchema.superRefine((source, ctx) => {
  if (source.inbox !== undefined && !(source.secret instanceof SecretRef)) {
    ctx.addIssue({ code: 'custom', path: ['inbox'], message: 'a routed source needs a fixed "secret": the inbox is known only after its signature is checked' });
  }
});

const audience = z
  .enum(['users', 'operator'])
  .default('users')
  .describe("Who its messages are for: `users` (each inbox's outbox, to its person) or `operator` (messages for whoever runs the service, never a user's).");

/** One channel, by kind; its name is its key in `channels` (and in each inbox's `contacts`). */
export const channelSchema = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('console'), audience })
    .strict()
    .describe("Print each message on the service's standard output (the default when no channel for users is set)."),
  z
    .object({
      type: z.literal('webhook'),
      audience,
      url: z.string().url().describe('Where each message is POSTed as JSON.'),
      secret: secret('long').describe(`Signs each request with Standard Webhooks headers (\`whsec_…\`). ${SECRET_HINT}`),
      timeoutMs: timeout,
    })
    .strict()
    .describe('POST each message to a URL, signed with Standard Webhooks headers.'),
  z
    .object({
      type: z.literal('slack'),
      audience,
      url: z.string().url().optional().describe("An incoming-webhook URL: every message goes to that one conversation."),
      botToken: secret()
        .optional()
        .describe(`A bot token (xoxb-…): each inbox's messages go to its own \`contacts.<name>\` through chat.postMessage. ${SECRET_HINT}`),
      to: z.string().min(1).optional().describe("With botToken: the conversation for an inbox with no contact on this channel, and for an operator channel's messages."),
      apiUrl: z.string().url().optional().describe("The Slack Web API's base URL with botToken (default https://slack.com/api; another for a local fake)."),
      timeoutMs: timeout,
    })
    .strict()
    .refine((slack) => (slack.url === undefined) !== (slack.botToken === undefined), { message: 'give either url (incoming webhook) or botToken (bot), not both or neither' })
    .refine((slack) => slack.apiUrl === undefined || slack.botToken !== undefined, { message: 'apiUrl goes with botToken', path: ['apiUrl'] })
    .refine((slack) => slack.to === undefined || slack.botToken !== undefined, { message: 'to goes with botToken (an incoming webhook has one conversation already)', path: ['to'] })
    .describe("Post to Slack: to each inbox's own conversation as a bot, or to one incoming webhook."),
  z
    .object({
      type: z.literal('email'),
      audience,
      host: z.string().min(1).describe('SMTP server.'),
      port: z.number().int().positive().max(65535).describe('SMTP port (587 with STARTTLS, 465 with `secure`).'),
      secure: z.boolean().default(false).describe('TLS from the start (port 465); otherwise STARTTLS when the server offers it.'),
      user: z.string().optional().describe('SMTP user name.'),
      password: secret().optional().describe(`SMTP password. ${SECRET_HINT}`),
      from: z.string().min(3).describe('The From address.'),
      to: z.string().min(3).optional().describe("Where mail goes for an inbox with no contact on this channel (without it, such an inbox's messages are undeliverable by email), and an operator channel's mail."),
      subject: z.string().default('Update from your agent').describe('The subject line.'),
      timeoutMs: timeout,
    })
    .strict()
    .describe('Send each message as an email over SMTP.'),
]);

/**
 * Channels by name. An operator's channel has no inbox to find a contact
 * in, so it must reach someone on its own: a Slack bot or email needs `to`.
 */
export const channelsSchema = z
  .record(z.string().regex(CHANNEL_NAME_PATTERN, 'channel names are lowercase [a-z0-9_-], up to 64 characters, starting with a letter or digit'), channelSchema)
  .superRefine((channels, ctx) => {
    for (const [name, channel] of Object.entries(channels)) {
      if (channel.audience === 'operator' && !sendsWithoutContact(channel)) {
        ctx.addIssue({ code: 'custom', path: [name, 'to'], message: `an operator channel has no inbox contact to send to: give it "to"` });
      }
    }
  });

export const configSchema = z
  .object({
    store: z
      .string()
      .superRefine((url, ctx) => {
        const problem = storeUrlProblem(url);
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default(DEFAULT_STORE_URL)
      .describe("Where the inboxes live: `sqlite:<dir>` (one file per inbox; relative to the config file) or `postgres://user:pass@host:5432/db` (every inbox in one database; `?schema=name` picks the schema; percent-encode `@ / ? # :` in the password). `--store` overrides it."),
    host: z.string().min(1).default('127.0.0.1').describe('The address the HTTP server listens on. `0.0.0.0` for every interface (put TLS in front).'),
    port: z.number().int().min(0).max(65535).default(8787).describe('The HTTP port; 0 picks a free one. `--port` overrides it.'),
    token: secret('bearer')
      .optional()
      .describe(`Bearer token for the API (messages, approvals) and the dashboard's sign-in. Without one, both are off. ${SECRET_HINT}`),
    linkSecret: secret('long').optional().describe(`Signs one-tap approval links (default: the token). Without either, links are off. ${SECRET_HINT}`),
    publicUrl: z
      .string()
      .url()
      .optional()
      .describe('The address people reach this service at, e.g. `https://vigil.example.com`: approval links are built from it. Default: `http://<host>:<port>`.'),
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
      .prefault({})
      .describe(
        `Webhook senders, by name: a source named \`github\` receives at \`POST /hooks/<inbox>/github\`. Names are lowercase letters, digits, \`_\` and \`-\`; ${RESERVED_SOURCES.join(', ')} are reserved.`,
      ),
    agent: z
      .string()
      .min(1)
      .optional()
      .describe('The agent module (`.ts`, `.js`, `.mjs`; relative to the config file): its default export, made with `defineAgent`. Default: the built-in demo agent (the README\'s quick start).'),
    channels: channelsSchema
      .prefault({ console: { type: 'console' } })
      .describe(
        'Where messages go, by name: `"slack-team": { "type": "slack", … }`. Each message of an inbox goes to every channel for users (a channel that needs a contact, only where the inbox has one under the channel\'s name in `contacts`); messages for the operator go to the channels with `"audience": "operator"`. The older form keyed by kind (`"slack": { "url": … }`, no `type`) still works: its name is its kind, for users.',
      ),
    delivery: z
      .enum(['at-least-once', 'at-most-once'])
      .default('at-least-once')
      .describe(
        'How the outbox goes out: `at-least-once` sends a batch again after a crash or a failed channel (same batch id, for the receiver to dedupe); `at-most-once` records it as sent first, so it is lost instead.',
      ),
    proxy: z
      .object({ url: z.string().url().describe('The proxy\'s address, e.g. `http://127.0.0.1:8788`.') })
      .strict()
      .optional()
      .describe("The credential proxy (`vigil proxy`) the agent's `ctx.fetch` goes through."),
    prices: z
      .record(
        z.string().min(1).max(200),
        z
          .object({
            inputPerMTok: perMTok.describe('Input tokens (not read from or written to the cache).'),
            outputPerMTok: perMTok.describe('Output tokens.'),
            cacheReadPerMTok: perMTok.optional().describe('Tokens read from the prompt cache (default: the input price).'),
            cacheWritePerMTok: perMTok.optional().describe('Tokens written to the prompt cache (default: the input price).'),
          })
          .strict()
          .describe('One model\'s price, USD per million tokens.'),
      )
      .optional()
      .describe(
        'Model prices in USD per million tokens, by model id (`"claude-sonnet-4-5": { "inputPerMTok": 3, "outputPerMTok": 15 }`), over the built-in table (src/agent/prices.ts). A run\'s usage is priced with them when its model gives no cost of its own; an id matches with or without a dated suffix (`-20250929`, `-2024-08-06`). A model in neither records its tokens with no cost.',
      ),
    workers: z
      .object({
        concurrency: count(RUNTIME_DEFAULTS.concurrency, 'Inboxes run at once by this process.', BOUNDS.maxCount),
        runTimeoutMs: count(RUNTIME_DEFAULTS.runTimeoutMs, 'A run longer than this is aborted and its events retried.', BOUNDS.maxTimerDelayMs),
        pollIntervalMs: count(RUNTIME_DEFAULTS.pollIntervalMs, 'The safety poll for work; store hints and timers do the real waking.', BOUNDS.maxTimerDelayMs),
        shutdownGraceMs: count(RUNTIME_DEFAULTS.shutdownGraceMs, 'On SIGTERM, how long running runs may finish before they are aborted.', BOUNDS.maxTimerDelayMs, 0),
      })
      .strict()
      .prefault({})
      .describe('The worker pool.'),
    approvals: z
      .object({
        remindAt: z
          .number()
          .gt(0)
          .lt(1)
          .nullable()
          .default(RUNTIME_DEFAULTS.approvalRemindAt)
          .describe(
            'When an approval still open gets one urgent reminder with its link, as a share of its life (0.75: at three quarters of `expiresInMs`); `null`: never. A tool\'s permission `{ ask: { expiresInMs, remindAt } }` and an approval that names `remindAt` override it.',
          ),
      })
      .strict()
      .prefault({})
      .describe('Approvals the agent asks for.'),
    engine: z
      .object({
        leaseTtlMs: count(STORE_DEFAULTS.leaseTtlMs, 'How long a worker holds an inbox without renewing.', BOUNDS.maxTimerDelayMs),
        maxAttempts: count(STORE_DEFAULTS.maxAttempts, 'Attempts before an event goes dead.', BOUNDS.maxCount),
        outboxGapMs: count(STORE_DEFAULTS.outboxGapMs, "Least time between two paced sends of one inbox's messages (an hour); urgent messages skip it.", BOUNDS.maxDurationMs, 0),
        retryBackoff: z
          .object({
            baseMs: storedDuration().describe(`Wait after the first failed attempt (default ${STORE_DEFAULTS.retryBackoff.baseMs}); doubled after each.`),
            maxMs: storedDuration().describe(`The longest wait between attempts (default ${STORE_DEFAULTS.retryBackoff.maxMs}, or baseMs if that is larger).`),
          })
          .partial()
          .optional()
          .describe('The wait before a failed event is tried again: `min(baseMs * 2^(n-1), maxMs)` after the n-th attempt.'),
        batchLimit: count(STORE_DEFAULTS.batchLimit, 'Most never-tried events one run takes.', BOUNDS.maxCount),
        maxPayloadBytes: count(STORE_DEFAULTS.maxPayloadBytes, 'Largest event payload as JSON.', BOUNDS.maxBytes),
        retention: z
          .object({
            doneEventsMs: storedDuration().describe('Keep done events this long after they finished; their keys stay, as tombstones, forever.'),
            deadEventsMs: storedDuration().describe('Keep dead events this long after they died.'),
            sentMessagesMs: storedDuration().describe('Keep sent messages this long after their send (one some channel did not take stays until it is redriven).'),
            answeredApprovalsMs: storedDuration().describe('Keep answered or expired approvals this long after the answer.'),
            actionsMs: storedDuration().describe("Keep operators' actions this long."),
            settledEffectsMs: storedDuration().describe('Keep side-effect calls settled confirmed or failed this long after settling (an unknown one stays until it is settled).'),
            usageMs: storedDuration().describe(
              "Keep each run's model usage row this long after the run (default 400 days, even with no retention set: otherwise the one table that grows for as long as an inbox runs).",
            ),
          })
          .partial()
          .strict()
          .optional()
          .describe(
            'How long finished rows are kept; absent keeps them forever (model usage: 400 days). `vigil serve` prunes in the background, a batch at a time; `vigil prune` does it once. Pending events, held messages and open approvals are never pruned.',
          ),
        writerThread: z
          .boolean()
          .default(true)
          .describe('SQLite: commit ingests on a writer thread, so that HTTP parsing and commits use two cores; each is still answered after its own durable commit. (The store itself defaults to false: a command making a few writes needs no thread.)'),
      })
      .strict()
      .prefault({})
      .describe('The store\'s rules (README, "Using the engine as a library").'),
    limits: z
      .object({
        pendingEventsPerInbox: limit(LIMIT_DEFAULTS.pendingEventsPerInbox, 'Most events an inbox holds not yet done or dead; past it a delivery gets 429 `inbox_full`.'),
        pendingBytesPerInbox: limit(LIMIT_DEFAULTS.pendingBytesPerInbox, "Most payload bytes of an inbox's pending events (64 MiB); past it 429 `inbox_full`."),
        eventsPerMinutePerInbox: limit(
          LIMIT_DEFAULTS.eventsPerMinutePerInbox,
          'Most events from outside an inbox stores per minute, counted in the store (shared by every instance on one PostgreSQL); past it 429 `rate_limited`.',
        ),
      })
      .strict()
      .prefault({})
      .describe(
        "Quotas per inbox on what arrives from outside (webhooks, the messages API); Vigil's own events (timers, approvals, redrives) are never refused. An inbox's settings may override them (`limits`), by the operator only: an agent's `ctx.updateSettings` cannot.",
      ),
    budget: z
      .object({
        tokensPerDay: z.number().int().min(0).max(MAX_LIMIT).optional().describe('Tokens of every kind (input, output, cache) per local day.'),
        costPerDayUsd: usd('US dollars per local day.'),
        costPerMonthUsd: usd('US dollars per local month.'),
        minimumLeftUsd: usd('A run never starts with less than this left of the day\'s or the month\'s cost budget.'),
      })
      .strict()
      .optional()
      .describe(
        "Every inbox's budget, in its person's days and months (settings `timeZone`, default UTC); each field of an inbox's own `budget` setting overrides it, by the operator only. Spent, the inbox is paused for spend: its events wait until the next day or month, or until the budget is raised, and the person hears of it once per period (README, \"Cap what a user can spend\").",
      ),
    maxBodyBytes: z.number().int().positive().max(BOUNDS.maxBytes).default(1_048_576).describe('Largest webhook or API request body accepted; larger ones get 413.'),
    log: z
      .object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('The least severe level logged.') })
      .strict()
      .default({ level: 'info' })
      .describe('Logs: JSON lines on standard output, pretty on a terminal and under `vigil dev`.'),
  })
  .strict();

/** The config file as validated: defaults filled, each secret still a SecretRef (resolve-config.ts reads them). */
export type ConfigFile = z.output<typeof configSchema>;
export type ServiceConfigInput = z.input<typeof configSchema>;
export type SourceFile = z.output<typeof sourceSchema>;
export type ChannelFile = z.output<typeof channelSchema>;
