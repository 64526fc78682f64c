/**
 * The life cycle of a user's data from the command line: prune what is
 * past its retention, export an inbox as JSON Lines, import one, delete
 * one, and move every inbox from one store to another (migrate-store: the
 * way from the embedded SQLite default to PostgreSQL). They talk to the
 * store directly, like the other inbox commands.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { Command } from 'commander';
import { isVigilError } from '../../errors.js';
import type { InboxRecord, PruneResult, Store } from '../../store/contract.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { inboxCommand, onStore, openCliStore, withStore, withStoreFlags, type StoreFlags } from '../open-cli-store.js';
import { parsePositiveInt } from '../parse.js';
import { print, printJson } from '../print.js';

/** Rows per prune transaction: short enough that no ingest waits on one for long. */
const PRUNE_BATCH = 1_000;

export function pruneCommand(): Command {
  return withStoreFlags(
    new Command('prune')
      .description("remove what is past its retention (the config's engine.retention), in short batches, until nothing is left; pruned events keep their keys")
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const { store, config } = await openCliStore(flags);
    try {
      if (config.engine.retention === undefined || Object.keys(config.engine.retention).length === 0) {
        throw new UsageError('no retention is configured (engine.retention in the config, e.g. { "doneEventsMs": 2592000000 }): nothing is past it but model usage older than 400 days, which `vigil serve` prunes by itself');
      }
      const total = await pruneUntilDone(store);
      if (flags.json === true) return printJson(total);
      print(`pruned ${total.events} events (their keys kept), ${total.messages} messages, ${total.approvals} approvals, ${total.actions} operator actions, ${total.effects} settled side effects, ${total.usage} usage rows`);
    } finally {
      await store.close();
    }
  });
}

export async function pruneUntilDone(store: Store): Promise<Omit<PruneResult, 'more'>> {
  const total = { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0 };
  for (;;) {
    const pruned = await store.prune({ limit: PRUNE_BATCH });
    total.events += pruned.events;
    total.messages += pruned.messages;
    total.approvals += pruned.approvals;
    total.actions += pruned.actions;
    total.effects += pruned.effects;
    total.usage += pruned.usage;
    if (!pruned.more) return total;
  }
}

export function exportCommand(): Command {
  return inboxCommand('export', 'write every record of an inbox (events with their payloads, messages, approvals, timers, memory, session, settings, actions, tombstones) as JSON Lines')
    .option('--out <file>', 'write to this file instead of standard output')
    .action(
      onStore(async (store, inboxId: string, flags: StoreFlags & { out?: string }) => {
        const out = flags.out === undefined ? process.stdout : createWriteStream(flags.out, { flags: 'wx' });
        const written = await writeLines(out, store.exportInbox(inboxId));
        if (out !== process.stdout) {
          out.end();
          await once(out, 'close');
        }
        if (written === 0) process.stderr.write(`inbox ${inboxId} holds nothing: no records\n`);
        else if (flags.out !== undefined) print(`wrote ${written} records of ${inboxId} to ${flags.out}`);
      }),
    );
}

/** One JSON document per line, waiting for the stream when it is full (an export may be larger than memory). */
async function writeLines(out: Writable, records: AsyncIterable<InboxRecord>): Promise<number> {
  let written = 0;
  for await (const record of records) {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
    written++;
  }
  return written;
}

export function importCommand(): Command {
  return inboxCommand('import', 'recreate an inbox from an export (JSON Lines), exactly, in one transaction; refused if the inbox holds anything', 'inbox id (it may differ from the exported one)')
    .requiredOption('--from <file>', "the export to read ('-' for standard input)")
    .action(
      onStore(async (store, inboxId: string, flags: StoreFlags & { from: string }) => {
        const { records } = await store.importInbox(inboxId, readLines(flags.from));
        print(`imported ${records} records into ${inboxId}`);
      }),
    );
}

/** The records of a JSON Lines file, one at a time (importInbox checks each); a line that is not JSON names itself. */
async function* readLines(file: string): AsyncGenerator<InboxRecord> {
  const input = file === '-' ? process.stdin : createReadStream(file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line) as InboxRecord;
    } catch (error) {
      throw new UsageError(`${file}:${n}: not a JSON record (${(error as Error).message})`);
    }
  }
}

export function deleteCommand(): Command {
  return inboxCommand('delete', 'remove an inbox and everything it holds, its dedupe keys included, for good (a deletion request); refused while a worker holds it')
    .option('--yes', 'really delete')
    .action(async (inboxId: string, flags: StoreFlags & { yes?: boolean }) => {
      // Checked before the store opens: without --yes nothing is touched.
      if (flags.yes !== true) {
        throw new UsageError(`this removes every event, message, approval, timer, memory and key of ${inboxId} for good; add --yes to do it (vigil export first to keep a copy)`);
      }
      await withStore(flags, async (store) => {
        if (!(await store.deleteInbox(inboxId))) throw new CommandFailed(`inbox ${inboxId} holds nothing: nothing deleted`);
        print(`deleted ${inboxId}`);
      });
    });
}

interface MigrateStoreFlags {
  from: string;
  to: string;
  config?: string;
}

export function migrateStoreCommand(): Command {
  return new Command('migrate-store')
    .description('copy every inbox from one store to another (e.g. sqlite:./data to postgres://…); inboxes already there are skipped, so an interrupted run resumes')
    .requiredOption('--from <url>', 'the store to read')
    .requiredOption('--to <url>', 'the store to write')
    .option('--config <file>', "a vigil config to take the engine options from (default: ./vigil.json if there is one)")
    .option('--limit <n>', 'move at most this many inboxes', parsePositiveInt)
    .action(async (flags: MigrateStoreFlags & { limit?: number }) => {
      if (flags.from === flags.to) throw new UsageError('--from and --to are the same store');
      const source = await openCliStore({ store: flags.from, config: flags.config });
      try {
        const target = await openCliStore({ store: flags.to, config: flags.config });
        try {
          const counts = await copyInboxes(source.store, target.store, flags.limit ?? Infinity);
          print(`moved ${counts.moved} inboxes (${counts.records} records); ${counts.skipped} already there, skipped`);
        } finally {
          await target.store.close();
        }
      } finally {
        await source.store.close();
      }
    });
}

/**
 * Each inbox's export streamed into the target's import: one transaction
 * per inbox there, so a run stopped at any point leaves each inbox either
 * whole in the target or absent, and the next run skips the whole ones.
 */
export async function copyInboxes(from: Store, to: Store, limit: number): Promise<{ moved: number; skipped: number; records: number }> {
  const counts = { moved: 0, skipped: 0, records: 0 };
  for (const inboxId of await from.inboxes()) {
    if (counts.moved >= limit) break;
    try {
      const { records } = await to.importInbox(inboxId, from.exportInbox(inboxId));
      counts.moved++;
      counts.records += records;
      print(`${inboxId}: ${records} records`);
    } catch (error) {
      if (!isVigilError(error, 'inbox_exists')) throw error;
      counts.skipped++;
    }
  }
  return counts;
}
