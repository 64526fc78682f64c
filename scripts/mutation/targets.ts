/**
 * What `npm run mutation` mutates, and with which tests. One entry per
 * module (a file or a folder): Stryker mutates `mutate` and runs only
 * `tests` against each mutant (and, within them, only the tests that
 * reach the mutated line: coverageAnalysis perTest). Keep `tests` to fast,
 * in-process files that exercise the module directly: a run is minutes per
 * target, not hours. A new module is one more entry, e.g.
 *   { name: 'retention', mutate: ['src/store/engine/retention.ts'], tests: ['test/unit/retention.test.ts', 'test/conformance/sqlite.test.ts'], rules: ['retention'] }
 * No PostgreSQL test: a run per mutant must stay in-process and fast.
 */
export interface MutationTarget {
  /** `npm run mutation -- <name>` runs this one only. */
  name: string;
  /** Globs of the files to mutate. */
  mutate: string[];
  /** The test files run against its mutants. */
  tests: string[];
  /**
   * With test/conformance/sqlite.test.ts among `tests`: only these rules of
   * the conformance suite (names of test/conformance/suite.ts's
   * CONFORMANCE_RULES), the ones that exercise the mutated files. All when
   * absent.
   */
  rules?: string[];
}

export const targets: MutationTarget[] = [
  {
    name: 'schedule',
    mutate: ['src/store/schedule.ts'],
    tests: ['test/unit/schedule.test.ts', 'test/conformance/sqlite.test.ts'],
  },
  {
    name: 'outbox-batch',
    mutate: ['src/store/outbox-batch.ts'],
    tests: ['test/unit/outbox-batch.test.ts', 'test/unit/pacing.test.ts', 'test/conformance/sqlite.test.ts'],
    rules: ['r9Outbox', 'r9Pacing', 'outboxFailures', 'readyInboxes', 'dashboardReads'],
  },
  {
    name: 'pacing',
    mutate: ['src/store/pacing.ts'],
    tests: ['test/unit/pacing.test.ts', 'test/unit/outbox-batch.test.ts', 'test/conformance/sqlite.test.ts'],
    rules: ['r9Outbox', 'r9Pacing', 'outboxFailures', 'readyInboxes', 'dashboardReads'],
  },
  {
    name: 'engine-validate',
    mutate: ['src/store/engine/validate/*.ts'],
    tests: [
      'test/unit/validate-text-ids.test.ts',
      'test/unit/validate-input.test.ts',
      'test/unit/validate-rules.test.ts',
      'test/unit/json-payload.test.ts',
      'test/unit/validate-inbox-record.test.ts',
      'test/conformance/sqlite.test.ts',
    ],
    // The rules whose subject is what the store refuses (inboxData: importInbox's records, inbox-record.ts); the unit tests above pin the rest.
    rules: ['idsAndKeys', 'r11InboxIds', 'inboxSettings', 'r1Dedupe', 'r5Errors', 'agentState', 'inboxData'],
  },
  {
    name: 'engine',
    // port.ts holds types only: no mutants.
    mutate: ['src/store/engine/*.ts'],
    // The pure parts (the scheduler's plan, retention's cutoffs and budget) have unit tests too.
    tests: ['test/unit/scheduler-plan.test.ts', 'test/unit/lifecycle.test.ts', 'test/conformance/sqlite.test.ts'],
  },
  {
    name: 'permissions',
    mutate: ['src/agent/permissions.ts'],
    tests: ['test/agent/permissions.test.ts', 'test/agent/tool-loop.test.ts'],
  },
  {
    name: 'webhooks',
    mutate: ['src/http/webhooks/*.ts'],
    tests: [
      'test/http/webhook-providers.test.ts',
      'test/http/hooks-route.test.ts',
      'test/http/webhook-verifiers.test.ts',
      'test/http/routing.test.ts',
      'test/http/per-inbox-secrets.test.ts',
    ],
  },
  {
    name: 'redact',
    mutate: ['src/proxy/redact.ts'],
    tests: ['test/proxy/redact.test.ts', 'test/proxy/proxy.test.ts'],
  },
];
