/** Real directories for real SQLite files, removed after each test. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createFakeClock, openStore, type FakeClock, type Store, type StoreOptions } from '../../src/index.js';

export const T0 = 1_000_000_000;

export interface TempStores {
  /** A fresh empty directory. */
  dir(): string;
  /** Opens a store on `dir` with a fake clock; closed after the test. */
  open(dir: string, options?: StoreOptions): Promise<{ store: Store; clock: FakeClock }>;
}

export function useTempStores(): TempStores {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir() {
      const dir = mkdtempSync(join(tmpdir(), 'vigil-sqlite-'));
      dirs.push(dir);
      return dir;
    },
    async open(dir, options = {}) {
      const clock = createFakeClock(T0);
      const store = await openStore(`sqlite:${dir}`, { clock: clock.now, ...options });
      stores.push(store);
      return { store, clock };
    },
  };
}

/** How many file descriptors this process holds right now. */
export function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}
