/**
 * Where an inbox lives on disk: `<dir>/<inbox id>.db`, and the checks that
 * a file found there is that inbox's own (R11). The store (sqlite-store.ts)
 * opens, caches and closes them.
 */
import { readdirSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { VigilError } from '../../errors.js';
import { INBOX_ID_PATTERN } from '../engine/validate/index.js';

const FILE_SUFFIX = '.db';

export function inboxFile(dir: string, inboxId: string): string {
  return join(dir, inboxId + FILE_SUFFIX);
}

/** The ids of the inbox files in `dir`, sorted; files whose names no inbox id could have are not inboxes. */
export function inboxIdsInDir(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(FILE_SUFFIX))
    .map((entry) => entry.name.slice(0, -FILE_SUFFIX.length))
    .filter((id) => INBOX_ID_PATTERN.test(id))
    .sort();
}

/**
 * R11 on a file system that ignores case (macOS and Windows by default):
 * inbox ids "Alice" and "alice" are two inboxes, but there "alice.db" opens
 * "Alice.db", and one user's events would land in another's inbox. So an
 * inbox's file must be stored under its own name: the name the file system
 * resolves it to (realpath, which gives the stored case on macOS and
 * Windows) is compared before the file is opened, and a mismatch is
 * refused, the file untouched. Linux's realpath keeps the case it was
 * given, so a case-folding directory there (ext4 casefold, vfat, an SMB
 * mount) is not caught. The same check refuses an inbox file that is a
 * link to another inbox's.
 */
export function assertOwnFile(inboxId: string, file: string): void {
  let stored: string;
  try {
    stored = basename(realpathSync.native(file));
  } catch {
    return; // not there yet: creating it names it after this inbox
  }
  if (stored !== basename(file)) {
    const other = stored.endsWith(FILE_SUFFIX) ? stored.slice(0, -FILE_SUFFIX.length) : stored;
    throw new VigilError(
      'invalid_inbox_id',
      `inbox "${inboxId}" cannot be opened: its file resolves to inbox "${other}"'s (${stored}); this store's directory ignores the case of names (or links them), so give inboxes ids that differ by more than case`,
    );
  }
}
