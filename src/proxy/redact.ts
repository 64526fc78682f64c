/**
 * The last line of defence for the proxy's own log: any text that came from
 * somewhere the proxy does not control (a fetch error's message, its cause)
 * has every configured credential cut out before it is logged. The proxy
 * never logs headers; this covers an error that quotes one anyway.
 */
import type { ResolvedProxyConfig } from './config.js';

export const REDACTED = '[redacted]';

export function redactor(config: ResolvedProxyConfig): (text: string) => string {
  const secrets = [...config.upstreams.values()].map((upstream) => upstream.value);
  if (config.adminToken !== undefined) secrets.push(config.adminToken);
  // Longest first, so a secret that contains another is cut whole.
  secrets.sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}

/** A thrown value as loggable text, with its cause chain, redacted. */
export function describeError(error: unknown, redact: (text: string) => string): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      const code = (current as NodeJS.ErrnoException).code;
      parts.push(`${current.name}${code === undefined ? '' : ` ${code}`}: ${current.message}`);
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return redact(parts.join(' <- '));
}
