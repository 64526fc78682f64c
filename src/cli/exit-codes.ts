/**
 * Exit codes scripts can branch on. Usage and config errors (2) are kept
 * apart from failures (1) so a deploy script can tell "fix the command" from
 * "try again later".
 */
import { isVigilError } from '../errors.js';
import { ConfigError } from '../config/config-error.js';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  success
  1  failure: the command ran but did not get what it asked for (an approval
     where another outcome stands, nothing to redrive) or the store failed
  2  usage or config error: bad arguments or an invalid config (the message
     names the bad field)`;

/** Bad input the user can fix: exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran and the answer is "no" (e.g. nothing to redrive): exit 1, message already printed. */
export class CommandFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailed';
  }
}

/** Maps an error to its exit code; a store error about the input (invalid_*) is a usage error. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError) return EXIT.usage;
  if (isVigilError(error) && error.code.startsWith('invalid_')) return EXIT.usage;
  return EXIT.failure;
}
