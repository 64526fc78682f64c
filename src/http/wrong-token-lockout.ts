/**
 * Wrong tokens, counted per client address. The API's bearer token and the
 * dashboard's sign-in guard the approvals and the operator's actions; this
 * makes guessing at them visible and slow to repeat. What keeps a token
 * from being guessed is its length (at least 32 characters, refused at
 * startup otherwise); docs/design/lockout.md has the threat model.
 *
 * Only a wrong token counts: a request with no token, or to a path that does
 * not exist, is not a guess. After MAX_FAILURES wrong tokens from one
 * address within WINDOW_MS, further wrong tokens from it get 429 with
 * Retry-After until WINDOW_MS after its first failure, and the lockout is
 * logged once. The right token is never refused: on the default 127.0.0.1
 * deployment every local process shares one address, and a guesser there
 * must not lock the operator out. A right token clears a count that has not
 * reached the limit, so an operator who mistypes now and then never meets it.
 *
 * An IPv6 client usually holds a whole /64 (and can pick any address in
 * it), so IPv6 addresses are counted per /64; IPv4, and IPv4 mapped into
 * IPv6, per address. Bounded: the LRU forgets the oldest past MAX_ADDRESSES.
 */
import { isIPv4, isIPv6 } from 'node:net';
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

export class WrongTokenLockout {
  private readonly failures = new LRUCache<string, Failures>({ max: MAX_ADDRESSES });

  constructor(private readonly now: () => number) {}

  /** Seconds until wrong tokens from `address` are answered 401 again, or null when they are now. */
  lockedFor(address: string): number | null {
    const entry = this.current(lockoutKey(address));
    if (entry === undefined || entry.count < MAX_FAILURES) return null;
    return Math.max(1, Math.ceil((entry.since + WINDOW_MS - this.now()) / 1000));
  }

  /** A wrong token from `address`; true when this one starts a lockout (log it then, once). */
  failed(address: string): boolean {
    const key = lockoutKey(address);
    const entry = this.current(key) ?? { count: 0, since: this.now() };
    entry.count += 1;
    this.failures.set(key, entry);
    return entry.count === MAX_FAILURES;
  }

  /** The right token: clears a count below the limit, but not a lockout, which runs out its window (the address may be shared with the guesser). */
  succeeded(address: string): void {
    const key = lockoutKey(address);
    const entry = this.current(key);
    if (entry !== undefined && entry.count < MAX_FAILURES) this.failures.delete(key);
  }

  private current(key: string): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry !== undefined && this.now() >= entry.since + WINDOW_MS) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }
}

/** What an address is counted under: the address for IPv4, its /64 for IPv6 ("2001:db8:0:1::/64"). */
export function lockoutKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped !== null && isIPv4(mapped[1] as string)) return mapped[1] as string;
  const bare = address.split('%', 1)[0] as string; // a zone id ("fe80::1%eth0") names the interface, not the peer
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, "::" expanded and a trailing dotted IPv4 turned into two groups. */
function ipv6Groups(address: string): string[] {
  const split = (part: string): string[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [group];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [head = '', tail] = address.split('::');
  if (tail === undefined) return split(head);
  const before = split(head);
  const after = split(tail);
  return [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
}

/** The peer's address as the socket sees it ('unknown' when there is no socket, as in app.request()). */
export function clientAddress(c: Context): string {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? 'unknown';
}
