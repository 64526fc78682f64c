/**
 * Whether the SQLite store's directory takes writes, asked without touching
 * any inbox's file: a small file is created, written, synced and removed.
 * A full disk, a read-only directory or mount, or a directory gone refuse
 * it, as they refuse every inbox; one inbox's corrupt file does not.
 * (The ready index is no probe: SQLite may fit a small write in space it
 * already holds, and a full disk would still look writable.)
 */
import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { VigilError } from '../../errors.js';

/** A block: a write the file system must find room for. */
const PROBE = Buffer.alloc(4096, 0);

const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the data directory or file is read-only',
  EACCES: 'the data directory or file is read-only',
  EPERM: 'the data directory or file is read-only',
  ENOENT: 'the data directory is gone',
  EIO: 'the disk reported an I/O error',
};

export async function probeDirectory(dir: string): Promise<void> {
  // Starts with `_`, which no inbox id can (R11); unique, so processes sharing the directory never meet.
  const file = join(dir, `_vigil-probe-${process.pid}-${randomUUID()}.tmp`);
  try {
    const handle = await open(file, 'wx');
    try {
      await handle.write(PROBE);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw new VigilError('store_unavailable', `${REASONS[code] ?? 'the data directory takes no writes'} (${code} on ${dir}); nothing was written`, { cause: error });
  } finally {
    await rm(file, { force: true }).catch(() => undefined);
  }
}
