/**
 * Setup for the many-users family (bench/many-users.ts), none of it timed:
 * stores of 10,000 inboxes, each with one pending event, some with
 * settings (a debounce, quiet hours), and a way to queue one message in
 * every inbox before each dispatcher pass.
 *
 * SQLite: one inbox per kind is written through the store, closed, and its
 * file copied under every id, then the ready index is rebuilt from the
 * files (creating 10,000 files through the store costs ~30 ms each in WAL
 * switches and migrations: minutes that measure nothing). PostgreSQL: every
 * inbox through the store, eight at a time.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeClock, openStore, type FakeClock, type InboxSettings, type Store } from '../src/index.js';
import { sqliteBackendOf } from '../src/store/sqlite/sqlite-store.js';

/** The fake clock's start: 2026-01-12 12:00 UTC, a Monday with no DST change near it. */
export const T0 = Date.UTC(2026, 0, 12, 12, 0, 0);

/** Quiet from an hour before T0 to an hour after (13:00 in Berlin in January): "now" is inside them on every day the passes run. */
export const QUIET_HOURS = { from: '12:00', to: '14:00', timeZone: 'Europe/Berlin' };
export const DEBOUNCE_MS = 1_000;

export interface SeedPlan {
  inboxes: number;
  /** The settings of the i-th inbox, or null for none. */
  settingsFor: (index: number) => InboxSettings | null;
  /** SQLite: inbox files kept open (the store's LRU); default the store's. */
  maxOpenInboxes?: number;
}

export const inboxId = (index: number): string => `user-${String(index).padStart(5, '0')}`;

export interface SeededStore {
  store: Store;
  clock: FakeClock;
  ids: string[];
  close(): Promise<void>;
}

/** Runs `work` over `items`, `width` at a time. */
export async function eachConcurrently<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function seedInbox(store: Store, id: string, settings: InboxSettings | null): Promise<void> {
  const inbox = store.inbox(id);
  if (settings !== null) await inbox.updateSettings(settings);
  await inbox.ingest({ source: 'chat', sourceId: 'hello', payload: { text: 'hello' } });
}

/** A SQLite store at `dir` (synchronous NORMAL) whose inboxes are copies of one seeded file per kind of settings. */
export async function seedSqlite(dir: string, templateDir: string, plan: SeedPlan): Promise<SeededStore> {
  const ids = Array.from({ length: plan.inboxes }, (_, i) => inboxId(i));
  const kindOf = (i: number): string => JSON.stringify(plan.settingsFor(i));
  /** Settings (as JSON) → the template inbox that has them. */
  const templates = new Map<string, string>();
  const templateStore = await openStore(`sqlite:${templateDir}`, { clock: createFakeClock(T0).now, synchronous: 'normal' });
  for (let i = 0; i < ids.length; i++) {
    if (templates.has(kindOf(i))) continue;
    const name = `template-${templates.size}`;
    await seedInbox(templateStore, name, plan.settingsFor(i));
    templates.set(kindOf(i), name);
  }
  await templateStore.close(); // the last connection checkpoints: each .db file alone holds its inbox
  mkdirSync(dir, { recursive: true });
  for (const [i, id] of ids.entries()) copyFileSync(join(templateDir, `${templates.get(kindOf(i))}.db`), join(dir, `${id}.db`));
  const clock = createFakeClock(T0);
  const lru = plan.maxOpenInboxes === undefined ? {} : { maxOpenInboxes: plan.maxOpenInboxes };
  const store = await openStore(`sqlite:${dir}`, { clock: clock.now, synchronous: 'normal', ...lru });
  await sqliteBackendOf(store).rebuildReadyIndex();
  return { store, clock, ids, close: () => store.close() };
}

/** A PostgreSQL store in `schema`, every inbox seeded through the store. */
export async function seedPostgres(url: string, schema: string, plan: SeedPlan, log: (line: string) => void): Promise<SeededStore> {
  const clock = createFakeClock(T0);
  const store = await openStore(url, { clock: clock.now, schema });
  const ids = Array.from({ length: plan.inboxes }, (_, i) => inboxId(i));
  let done = 0;
  await eachConcurrently(
    ids.map((id, i) => [id, i] as const),
    8,
    async ([id, i]) => {
      await seedInbox(store, id, plan.settingsFor(i));
      if (++done % 5_000 === 0) log(`many users (PostgreSQL ${schema}): seeded ${done} of ${ids.length} inboxes`);
    },
  );
  return { store, clock, ids, close: () => store.close() };
}

/** One message held in every inbox, as a run's finish queues it. */
export async function queueOneMessageEach(store: Store, ids: readonly string[]): Promise<void> {
  await eachConcurrently(ids, 8, async (id) => {
    const inbox = store.inbox(id);
    const gen = (await inbox.acquire('bench')) as number;
    await inbox.finish('bench', gen, [], { messages: ['an update'] });
    await inbox.release('bench', gen);
  });
}
