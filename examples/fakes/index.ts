/**
 * The fakes `npm run fakes -- <name>` starts (scripts/fakes.ts), with what
 * a person trying an example by hand needs: a fixed port, the credential
 * the fake accepts, and the environment variables that point a client (or
 * `vigil proxy`, through an example's `proxy.offline.json`) at it. Tests
 * start the same fakes through the `startFake…` functions, on port 0.
 */
import { ANTHROPIC_ROUTES, startFakeAnthropic } from './anthropic.js';
import { GITHUB_ROUTES, startFakeGitHub } from './github.js';
import type { FakeOptions } from './listen.js';
import { OPENAI_ROUTES, startFakeOpenAI } from './openai.js';
import { SLACK_ROUTES, startFakeSlack } from './slack.js';
import { startFakeStripe, STRIPE_ROUTES } from './stripe.js';

export { startFakeAnthropic, type FakeAnthropic, type FakeAnthropicOptions, type AnthropicRequest } from './anthropic.js';
export { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions, type OpenAIRequest } from './openai.js';
export { defaultScript, type FakeReply, type FakeToolCall, type FakeUsage, type ModelCall, type ReplyScript } from './model-script.js';
export { startFakeGitHub, type FakeGitHub } from './github.js';
export { startFakeStripe, type FakeStripe, type StripeCharge } from './stripe.js';
export { startFakeSlack, type FakeSlack } from './slack.js';

export interface RunningFake {
  url: string;
  /** What it answers, one route a line. */
  routes: string[];
  /** Variables to export so a client, or `vigil proxy`, uses this fake. */
  env: Record<string, string>;
  /** Anything else worth knowing (the data it holds). */
  notes: string[];
  close(): Promise<void>;
}

export interface FakeEntry {
  /** The port it listens on unless told otherwise; the examples' offline configs name it. */
  port: number;
  start(options: FakeOptions): Promise<RunningFake>;
}

/** The credentials the fakes accept: made up, printed, and never a real service's. */
export const FAKE_CREDENTIALS = {
  github: 'ghp_fake_token',
  stripe: 'sk_test_fake',
  slack: 'xoxb-fake',
  anthropic: 'sk-ant-fake',
  openai: 'sk-fake',
} as const;

export const FAKES = {
  github: {
    port: 8790,
    async start(options) {
      const fake = await startFakeGitHub(FAKE_CREDENTIALS.github, options);
      return { url: fake.url, routes: GITHUB_ROUTES, env: { GITHUB_AUTH: `Bearer ${FAKE_CREDENTIALS.github}` }, notes: ['any repository and issue number exist'], close: fake.close };
    },
  },
  stripe: {
    port: 8791,
    async start(options) {
      const fake = await startFakeStripe(FAKE_CREDENTIALS.stripe, [
        { id: 'ch_1', amount: 4200, currency: 'usd' },
        { id: 'ch_2', amount: 1999, currency: 'eur' },
      ], options);
      return { url: fake.url, routes: STRIPE_ROUTES, env: { STRIPE_AUTH: `Bearer ${FAKE_CREDENTIALS.stripe}` }, notes: ['charges: ch_1 ($42.00), ch_2 (€19.99)'], close: fake.close };
    },
  },
  slack: {
    port: 8792,
    async start(options) {
      const fake = await startFakeSlack({ token: FAKE_CREDENTIALS.slack, ...options });
      return { url: fake.apiUrl, routes: SLACK_ROUTES, env: { SLACK_BOT_TOKEN: FAKE_CREDENTIALS.slack, SLACK_API_URL: fake.apiUrl }, notes: ['every channel id exists; a user id is posted as is'], close: fake.close };
    },
  },
  anthropic: {
    port: 8793,
    async start(options) {
      const fake = await startFakeAnthropic({ apiKey: FAKE_CREDENTIALS.anthropic, ...options });
      return { url: fake.url, routes: ANTHROPIC_ROUTES, env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: FAKE_CREDENTIALS.anthropic }, notes: SCRIPT_NOTES, close: fake.close };
    },
  },
  openai: {
    port: 8794,
    async start(options) {
      const fake = await startFakeOpenAI({ apiKey: FAKE_CREDENTIALS.openai, ...options });
      return {
        url: fake.url,
        routes: OPENAI_ROUTES,
        env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: FAKE_CREDENTIALS.openai, VIGIL_MODEL_URL: fake.url, VIGIL_MODEL: 'fake-model' },
        notes: SCRIPT_NOTES,
        close: fake.close,
      };
    },
  },
} satisfies Record<string, FakeEntry>;

export type FakeName = keyof typeof FAKES;

const SCRIPT_NOTES = [
  'a message naming an offered tool calls it: "cancel_order order=43" (or a JSON object after the name)',
  'a tool result is answered "Done: <result>"; anything else "You said: <text>"',
];
