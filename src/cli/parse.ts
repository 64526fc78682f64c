/** Parsers for CLI arguments: each throws commander's InvalidArgumentError, which exits 2. */
import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `5m`, `1h`, `1d`, or plain milliseconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(value.trim());
  if (match === null) throw new InvalidArgumentError('use a duration like 30s, 5m, 1h, 1d or milliseconds');
  const ms = Number(match[1]) * UNITS[match[2] ?? 'ms']!;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new InvalidArgumentError('must be a positive duration');
  return ms;
}

/** An ISO time (`2025-01-01T09:00:00Z`), epoch milliseconds, or `+<duration>` from now. */
export function parseTime(value: string, now = Date.now()): number {
  const trimmed = value.trim();
  if (trimmed.startsWith('+')) return now + parseDuration(trimmed.slice(1));
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const ms = Date.parse(trimmed);
  if (Number.isNaN(ms)) throw new InvalidArgumentError('use an ISO time (2025-01-01T09:00:00Z), epoch milliseconds or +<duration> (+10m)');
  return ms;
}

export function parseJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON: ${(error as Error).message}`);
  }
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('must be a positive integer');
  }
  return Number(value);
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65_535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return Number(value);
}
