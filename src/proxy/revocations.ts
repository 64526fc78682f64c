/**
 * The revoke switch: upstreams cut while the proxy runs. Checked on every
 * request, so a revoke is effective for the very next one; a request already
 * streaming its response is not cut (it was allowed when it started).
 *
 * In memory only, on purpose: the file stays the one place that says what
 * is allowed. A restart restores the file's config, so a credential that
 * must stay cut is removed from the file (or its variable) as well.
 */
export class Revocations {
  private readonly revoked = new Set<string>();

  revoke(name: string): void {
    this.revoked.add(name);
  }

  restore(name: string): void {
    this.revoked.delete(name);
  }

  has(name: string): boolean {
    return this.revoked.has(name);
  }

  list(): string[] {
    return [...this.revoked].sort();
  }
}
