/**
 * Wrong tokens, counted per client address. The API's bearer token and the
 * dashboard's sign-in guard the approvals and the operator's actions, and a
 * token someone chose by hand can be short: without a limit, anyone who can
 * reach the port may guess at the speed of the server.
 *
 * After MAX_FAILURES wrong tokens from one address within WINDOW_MS, every
 * token check from that address is refused with 429 and Retry-After, the
 * right token too (a throttle that still said "yes" to the right one would
 * go on answering the guesses), until WINDOW_MS after its first failure. A
 * right token before that clears the count. Other addresses are not
 * affected. Behind a reverse proxy every client has the proxy's address:
 * a guesser there locks everyone out for at most WINDOW_MS, the price of
 * not trusting a forwarded header anyone can set.
 *
 * Bounded: the LRU forgets the oldest addresses past MAX_ADDRESSES.
 */
import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

interface Failures {
  count: number;
  /** When the first failure of this window was counted. */
  since: number;
}

export class SignInThrottle {
  private readonly failures = new LRUCache<string, Failures>({ max: MAX_ADDRESSES });

  constructor(private readonly now: () => number) {}

  /** Seconds until `address` may try a token again, or null when it may now; ask before checking the token. */
  lockedFor(address: string): number | null {
    const entry = this.current(address);
    if (entry === undefined || entry.count < MAX_FAILURES) return null;
    return Math.max(1, Math.ceil((entry.since + WINDOW_MS - this.now()) / 1000));
  }

  /** A wrong token from `address`; true when this one locks it out. */
  failed(address: string): boolean {
    const entry = this.current(address) ?? { count: 0, since: this.now() };
    entry.count += 1;
    this.failures.set(address, entry);
    return entry.count === MAX_FAILURES;
  }

  succeeded(address: string): void {
    this.failures.delete(address);
  }

  private current(address: string): Failures | undefined {
    const entry = this.failures.get(address);
    if (entry !== undefined && this.now() >= entry.since + WINDOW_MS) {
      this.failures.delete(address);
      return undefined;
    }
    return entry;
  }
}

/** The peer's address as the socket sees it ('unknown' when there is no socket, as in app.request()). */
export function clientAddress(c: Context): string {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? 'unknown';
}
