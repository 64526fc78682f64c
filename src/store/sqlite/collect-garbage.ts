/**
 * A full garbage collection, for the one loop that needs it: the ready
 * index's rebuild after a machine boot (sqlite-store.ts, rebuildAfterBoot)
 * opens and closes every inbox file in turn, and each closed better-sqlite3
 * connection leaves native memory behind its JavaScript objects until they
 * are collected. V8 does not see that memory, and with a small heap it
 * collects rarely: over 100,000 files the process grew by ~50 MB, which a
 * collection every few thousand files gives back (bench/memory.ts measures
 * it). `--expose-gc` set at run time only adds the `gc` function.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (gc === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed !== undefined) gc = exposed;
    else {
      try {
        setFlagsFromString('--expose-gc');
        gc = runInNewContext('gc') as () => void;
      } catch {
        gc = null; // a runtime without the flag: the rebuild still works, only with more memory
      }
    }
  }
  gc?.();
}
