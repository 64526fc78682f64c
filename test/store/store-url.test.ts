/** Store URLs (src/store/store-url.ts): the one grammar the config, the CLI, agent loading and the testing kit ask. */
import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import { localStoreDir, openStore, parseStoreUrl, redactStoreUrl, resolveStoreUrl, sqliteStoreUrl, storeUrlProblem } from '../../src/store/index.js';

describe('parseStoreUrl', () => {
  it('reads a SQLite directory, relative, absolute or with a file URL\'s three slashes', () => {
    expect(parseStoreUrl('sqlite:./data')).toEqual({ backend: 'sqlite', dir: './data' });
    expect(parseStoreUrl('sqlite:/var/lib/vigil')).toEqual({ backend: 'sqlite', dir: '/var/lib/vigil' });
    expect(parseStoreUrl('sqlite:///var/lib/vigil')).toEqual({ backend: 'sqlite', dir: '/var/lib/vigil' });
    expect(parseStoreUrl(sqliteStoreUrl('/tmp/x'))).toEqual({ backend: 'sqlite', dir: '/tmp/x' });
  });

  it('takes both PostgreSQL schemes as they are', () => {
    expect(parseStoreUrl('postgres://u:pw@h/d')).toEqual({ backend: 'postgres', url: 'postgres://u:pw@h/d' });
    expect(parseStoreUrl('postgresql://h/d')).toEqual({ backend: 'postgres', url: 'postgresql://h/d' });
  });

  it('refuses anything else with invalid_store_url, never quoting a URL that may hold a password', () => {
    for (const url of ['sqlite:', 'mysql://root:hunter2@db/x', 'postgres:/one-slash:hunter2', 42]) {
      let error: unknown;
      try {
        parseStoreUrl(url);
      } catch (caught) {
        error = caught;
      }
      expect(isVigilError(error, 'invalid_store_url'), String(url)).toBe(true);
      expect((error as Error).message).not.toContain('hunter2');
    }
    expect(storeUrlProblem('sqlite:')).toMatch(/names a directory/);
    expect(storeUrlProblem('redis://x')).toMatch(/sqlite:<dir>/);
    expect(storeUrlProblem('sqlite:./data')).toBeNull();
  });

  it('an unparseable PostgreSQL URL is refused without its password', async () => {
    const error = await openStore('postgres://vigil:pass@word@[broken/db?password=other-secret').catch((caught: unknown) => caught);
    expect(isVigilError(error, 'invalid_store_url')).toBe(true);
    // Not /pass/: the message says how to encode a password.
    expect((error as Error).message).not.toMatch(/vigil:pass|pass@|word@|\[broken|other-secret/);
    expect((error as Error).message).toMatch(/not shown/);
  });
});

describe('resolveStoreUrl and localStoreDir', () => {
  it('makes a relative SQLite directory absolute against the config file\'s folder, and leaves the rest', () => {
    expect(resolveStoreUrl('sqlite:./data', '/etc/vigil')).toBe('sqlite:/etc/vigil/data');
    expect(resolveStoreUrl('sqlite:/var/lib/vigil', '/etc/vigil')).toBe('sqlite:/var/lib/vigil');
    expect(resolveStoreUrl('postgres://h/d', '/etc/vigil')).toBe('postgres://h/d');
  });

  it('names the directory of a SQLite store only', () => {
    expect(localStoreDir('sqlite:./data')).toBe('./data');
    expect(localStoreDir('postgres://h/d')).toBeNull();
  });
});

describe('redactStoreUrl', () => {
  it('hides the password in the authority and in ?password= / ?sslpassword=, keeps the rest', () => {
    expect(redactStoreUrl('postgres://vigil:s3cr%40t@db.internal:5432/vigil?schema=prod')).toBe('postgres://vigil:***@db.internal:5432/vigil?schema=prod');
    expect(redactStoreUrl('postgresql://vigil:pw@127.0.0.1/db')).toBe('postgresql://vigil:***@127.0.0.1/db');
    expect(redactStoreUrl('postgres://vigil@db/vigil?password=pw&sslpassword=key-pw&sslmode=require')).toBe(
      'postgres://vigil@db/vigil?password=***&sslpassword=***&sslmode=require',
    );
    expect(redactStoreUrl('POSTGRES://u:pw@h/d')).not.toContain('pw');
  });

  it('leaves URLs without a password, and SQLite paths, as they are', () => {
    expect(redactStoreUrl('postgres://vigil@db.internal/vigil')).toBe('postgres://vigil@db.internal/vigil');
    expect(redactStoreUrl('sqlite:./data')).toBe('sqlite:./data');
    expect(redactStoreUrl('sqlite:/var/lib/vigil:pw@x')).toBe('sqlite:/var/lib/vigil:pw@x');
  });

  it('shows none of a PostgreSQL URL it cannot take apart', () => {
    expect(redactStoreUrl('postgres://user:pw@[broken')).toBe('postgres://(unparseable URL, not shown)');
  });
});
