/**
 * Lets the disk settle before a group of measurements: `sync`, then wait
 * until the kernel's dirty and writeback pages are under QUIET_BYTES (at
 * most QUIET_MAX_MS). The families run one after another on one disk, and
 * some write gigabytes (retention stores a million webhooks): without this,
 * the next group times its commits against that writeback. Measured on the
 * benchmark's machine with 2.2 GB left dirty by a copy: the one-event run
 * cycle after 10,000 done read 2.51x the reference; after `sync`, 2.99x;
 * on a quiet disk 3.12x-3.19x in four runs. Both sides of a group always
 * measure on the same disk; this only keeps one group's writes out of the
 * next group's figures.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { elapsedSeconds, startTimer } from './timing.js';

const QUIET_BYTES = 32 * 1024 * 1024;
const QUIET_MAX_MS = 30_000;
const POLL_MS = 100;

/** Dirty + Writeback from /proc/meminfo in bytes, or null where there is none (not Linux). */
function pendingWriteBytes(): number | null {
  try {
    const info = readFileSync('/proc/meminfo', 'utf8');
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? 0);
    return (kb('Dirty') + kb('Writeback')) * 1024;
  } catch {
    return null;
  }
}

export async function quietDisk(log: (line: string) => void): Promise<void> {
  if (platform() === 'win32') return;
  const started = startTimer();
  const before = pendingWriteBytes();
  spawnSync('sync', { stdio: 'ignore' });
  let pending = pendingWriteBytes();
  while (pending !== null && pending > QUIET_BYTES && elapsedSeconds(started) * 1000 < QUIET_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    pending = pendingWriteBytes();
  }
  const mb = (bytes: number | null): string => (bytes === null ? '?' : `${Math.round(bytes / 1024 / 1024)} MB`);
  log(`disk settled in ${elapsedSeconds(started).toFixed(1)} s (dirty + writeback ${mb(before)} before, ${mb(pending)} after)`);
}
