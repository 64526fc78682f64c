/**
 * One zod issue as one line that names the field: `workers.concurrency:
 * Too small…`, `colour: unknown key`. Shared by the service config and the
 * credential proxy's, so both read the same.
 */
import type { z } from 'zod';

export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    // A key that is not a plain name (empty, spaces, dots) is quoted, so it is never blank in the message.
    const named = (key: string): string => (/^[A-Za-z0-9_$-]+$/.test(key) ? key : JSON.stringify(key));
    const keys = issue.keys.map((key) => (path === '' ? named(key) : `${path}.${named(key)}`));
    return `${keys.join(', ')}: unknown key${keys.length > 1 ? 's' : ''}`;
  }
  // A bad record key (a source or upstream name): zod says "Invalid key in record" and keeps the reason one level down.
  if (issue.code === 'invalid_key') return `${path}: ${issue.issues.map((inner) => inner.message).join('; ')}`;
  const message = issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'required' : issue.message;
  return `${path === '' ? '(config)' : path}: ${message}`;
}
