/**
 * Inbound routing: which inbox a delivery to `POST /hooks/<source>` belongs
 * to, read from the verified body. The config says where (`inbox.from`, a
 * dotted path, and a `prefix`), or the agent decides (`route()`). Anything
 * that does not give a valid inbox id is `unroutable`: the delivery is
 * refused with 422 and nothing is stored.
 */
import type { InboxRouter } from '../../agent/agent.js';
import { INBOX_ID_PATTERN } from '../../store/index.js';

export interface Routing {
  from: string;
  prefix: string;
}

/**
 * `prefix` + the value at `from` in `payload`: a string, or a number written
 * as a string. Only own properties are followed (a path "constructor.name"
 * must not reach Object.prototype); numeric segments index arrays. Null when
 * the value is missing or empty, of another type, or not a valid inbox id
 * with the prefix.
 */
export function inboxFromPayload(payload: unknown, routing: Routing): string | null {
  let node: unknown = payload;
  for (const segment of routing.from.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return null;
    node = (node as Record<string, unknown>)[segment];
  }
  const value = typeof node === 'string' ? node : typeof node === 'number' && Number.isFinite(node) ? String(node) : null;
  // An empty value names nobody, even where the prefix alone would be a valid id.
  return value === null || value === '' ? null : validInboxId(routing.prefix + value);
}

export function validInboxId(id: unknown): string | null {
  return typeof id === 'string' && INBOX_ID_PATTERN.test(id) ? id : null;
}

/** What the agent's route() says, as a valid inbox id or null; a route() that throws is logged by the caller. */
export async function inboxFromAgent(route: InboxRouter, source: string, payload: unknown, headers: Record<string, string>): Promise<string | null> {
  return validInboxId(await route(source, payload, headers));
}
