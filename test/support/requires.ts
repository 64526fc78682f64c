/**
 * What a test file needs from the machine beyond Node.js, declared at the
 * top of the file: `requires('cap_sys_admin')`.
 *
 * Where it is missing, every test of the file is skipped with the reason
 * (`ctx.skip(reason)`); test/reporters/summary-line.ts prints one line per
 * skipped test with it, so a developer's `npm test` is green and says what
 * it did not run, and why. With `CI` set (CI=true), a missing capability
 * fails each test instead: CI must run everything, and a machine that lost
 * a capability must not turn the suite quietly smaller.
 *
 * Capabilities are probed, not guessed from the user id: a container's
 * root may lack CAP_SYS_ADMIN, and what the fault tests need is a mount
 * that works.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach } from 'vitest';

export type Capability = 'root' | 'cap_sys_admin' | 'chromium';

/** Where the dashboard's browser tests find Chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const probed = new Map<Capability, string | null>();

/** Why `capability` is missing on this machine, or null when it is there. Probed once per test file. */
export function missing(capability: Capability): string | null {
  if (!probed.has(capability)) probed.set(capability, probe(capability));
  return probed.get(capability)!;
}

/** True where `CI` is set to anything but '', '0' or 'false'. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

/**
 * Declares what every test in this file needs. Returns true when all of it
 * is there, so a `beforeAll` can leave out what cannot start (a browser)
 * and let the tests be skipped, or fail under CI, with the reason.
 */
export function requires(...capabilities: Capability[]): boolean {
  const reasons = capabilities.map(missing).filter((reason): reason is string => reason !== null);
  if (reasons.length === 0) return true;
  const reason = reasons.join('; ');
  beforeEach((ctx) => {
    if (inCi()) throw new MissingCapability(reason);
    ctx.skip(reason);
  });
  return false;
}

/** A missing capability under CI: one line, no stack, so the log says what to fix and nothing else. */
export class MissingCapability extends Error {
  constructor(reason: string) {
    super(`${reason} (CI is set, so a missing capability fails the test instead of skipping it)`);
    this.name = 'MissingCapability';
    this.stack = `${this.name}: ${this.message}`;
  }
}

function probe(capability: Capability): string | null {
  switch (capability) {
    case 'root':
      return process.getuid?.() === 0 ? null : `needs root (running as uid ${String(process.getuid?.())})`;
    case 'cap_sys_admin':
      return probeMount();
    case 'chromium':
      return probeChromium();
  }
}

/** Mounts and unmounts a tiny tmpfs: exactly what test/fixtures/filesystem-faults.ts does. */
function probeMount(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim().split('\n')[0];
    return `needs CAP_SYS_ADMIN to mount a small tmpfs and a read-only bind (root on a VM, or a container run with --cap-add SYS_ADMIN); mount said: ${said}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function probeChromium(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `needs Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
  }
}
