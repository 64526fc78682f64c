/**
 * A store URL as it may be shown: in the startup log, or anywhere else a
 * person or a log collector reads it. A PostgreSQL URL carries its
 * password (`postgres://user:pass@host/db`, or `?password=` and
 * `?sslpassword=`, which `pg` reads too); the user, host, port, database
 * and the other parameters stay, since they are what an operator checks.
 */
const HIDDEN = '***';
const SECRET_PARAMS = ['password', 'sslpassword'];

export function redactStoreUrl(url: string): string {
  if (!/^postgres(?:ql)?:/i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL we can take apart: show none of it rather than guess where the password is.
    return 'postgres://(unparseable URL, not shown)';
  }
  if (parsed.password !== '') parsed.password = HIDDEN;
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) parsed.searchParams.set(name, HIDDEN);
  }
  return parsed.toString();
}
