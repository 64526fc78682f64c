/**
 * The sign-in `next` values an attacker would try, with where each must
 * send the browser: off-site tricks land on the dashboard's root, honest
 * paths are kept. Shared by the HTTP test and the Chromium test.
 */
export const OFF_SITE_NEXT: string[] = [
  '/.//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/x/..//evil.example',
  '/x/../..//evil.example/path?q=1',
  '/./\\evil.example',
  '/\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  '/.\t//evil.example',
  '/\n/evil.example',
  '/\r\n//evil.example',
  '//evil.example/x',
  '///evil.example',
  'https://evil.example/',
  'http:evil.example',
  'javascript:alert(1)',
  'inbox/alice',
];

/** `next` → the Location it must answer: still on this server, re-encoded as a browser reads it. */
export const KEPT_NEXT: [string, string][] = [
  ['/inbox/alice', '/inbox/alice'],
  ['/inbox/alice?status=dead#events', '/inbox/alice?status=dead#events'],
  ['/./inbox/alice', '/inbox/alice'],
  ['/x/../inbox/alice', '/inbox/alice'],
  ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ['/%5Cevil.example', '/%5Cevil.example'],
];
