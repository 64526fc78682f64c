/**
 * Which boot of the machine this is. The ready index is written without an
 * fsync (synchronous = NORMAL): a process crash loses none of it, but a
 * power loss may lose its last commits while the inbox files, synced at
 * every commit, keep theirs. A stored event or timer could then stay
 * hidden from readyInboxes() until its inbox is written again. A power loss
 * means a new boot, so the store re-derives the index once per boot
 * (SqliteStore, docs/design/ready-index.md).
 */
import { readFileSync } from 'node:fs';
import { uptime } from 'node:os';

export function currentBootId(): string {
  try {
    return `linux:${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    // Elsewhere: when the machine booted, to the minute. A clock stepped by a
    // minute or more reads as a new boot too: one rebuild more, nothing lost.
    return `booted-at-minute:${Math.round((Date.now() - uptime() * 1000) / 60_000)}`;
  }
}
