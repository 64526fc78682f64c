/**
 * The model a Claude agent uses when nobody names one (the demo agent,
 * VIGIL_CLAUDE_MODEL unset): the newest alias the installed
 * `@anthropic-ai/sdk` lists (its `Model` type, newest first) that its
 * deprecation table does not name, so the default never prints an
 * end-of-life warning. test/agent/claude/default-model.test.ts reads the
 * installed SDK and fails when a newer alias appears or this one is
 * deprecated: an SDK upgrade brings the default along on purpose.
 */
export const DEFAULT_CLAUDE_MODEL = 'claude-fable-5-2';
