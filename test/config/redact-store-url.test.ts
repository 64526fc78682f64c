/** redactStoreUrl: a PostgreSQL URL shown without its password, wherever pg would read one from. */
import { expect, it } from 'vitest';
import { redactStoreUrl } from '../../src/config/redact-store-url.js';

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
