/**
 * The older form of `channels`, keyed by kind: `"slack": { "url": … }` with
 * no `type`. It still works, read as a channel named for its kind, for
 * users, so a config written before channels had names keeps its meaning,
 * and each inbox's `contacts.slack` still reaches the same channel.
 * Renaming such a channel (giving it `type` and another name) changes the
 * key its contacts are found under: docs/configuration.md says so.
 */
const KINDS = ['console', 'webhook', 'slack', 'email'];

/** `raw` with each kind-keyed channel given its `type`; anything else is left for the schema to judge. */
export function fromKindKeyed(raw: unknown): unknown {
  if (!isObject(raw) || !isObject(raw.channels)) return raw;
  // fromEntries, not assignment: a channel named "__proto__" stays a key the schema refuses, not a prototype.
  const channels = Object.fromEntries(
    Object.entries(raw.channels).map(([name, channel]) => [name, KINDS.includes(name) && isObject(channel) && !Object.hasOwn(channel, 'type') ? { type: name, ...channel } : channel]),
  );
  return { ...raw, channels };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
