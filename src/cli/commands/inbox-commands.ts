/**
 * Commands on one inbox's events: ingest, status, events, redrive, approve.
 * They talk to the store directly (no server needed), so they work while
 * `vigil serve` is down, which is when an operator needs them most. Redrive
 * and approve are recorded in the inbox as the dashboard's actions are.
 */
import { Command, Option } from 'commander';
import { isVigilError } from '../../errors.js';
import type { EventRow, EventStatus, InboxLimits, InboxStats, InboxUsage, LeaseInfo } from '../../store/contract.js';
import { effectiveLimits } from '../../store/index.js';
import { answerResult, cliActor, redriveResult } from '../../runtime/operator-actions.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { inboxCommand, onStore, withStore, withStoreFlags, type StoreFlags } from '../open-cli-store.js';
import { parseJson, parsePositiveInt } from '../parse.js';
import { isoTime, print, printJson, table } from '../print.js';

export function ingestCommand(): Command {
  return inboxCommand('ingest', 'store one event in an inbox (a duplicate (source, sourceId) stores nothing)')
    .argument('<source>', 'where the event comes from, e.g. chat or github')
    .argument('<sourceId>', "the source's unique id for it: the dedupe key")
    .option('--payload <json>', 'the event body as JSON', parseJson)
    .action(
      onStore(async (store, inboxId: string, source: string, sourceId: string, flags: StoreFlags & { payload?: unknown }) => {
        const stored = await store.inbox(inboxId).ingest({ source, sourceId, payload: flags.payload ?? {} });
        print(stored ? `stored ${source}/${sourceId} in ${inboxId}` : `duplicate: ${source}/${sourceId} is already in ${inboxId}; nothing stored`);
      }),
    );
}

export function statusCommand(): Command {
  return withStoreFlags(new Command('status').description('event counts, outbox, timers, approvals and lease of one inbox, or of every inbox'))
    .argument('[inbox]', 'inbox id (default: all inboxes)')
    .option('--json', 'print JSON')
    .action((inboxId: string | undefined, flags: StoreFlags & { json?: boolean }) =>
      withStore(flags, async (store, _url, config) => {
        if (inboxId !== undefined) {
          const stats = await store.inbox(inboxId).stats();
          // Its usage against the limits that apply to it (the config's, or its own setting's), as GET /inboxes/<id>/stats gives.
          const limits = effectiveLimits(config.limits, await store.inbox(inboxId).settings());
          if (flags.json === true) return printJson({ ...stats, limits });
          statusTable([{ inbox: inboxId, stats }], (await store.nextWake()).now);
          return printUsage(stats.usage, limits);
        }
        // Every inbox: one that cannot be read (a corrupt file, a row out of range) is a row saying so, and the rest are listed.
        const rows: StatusRow[] = [];
        for (const id of await store.inboxes()) {
          try {
            rows.push({ inbox: id, stats: await store.inbox(id).stats() });
          } catch (error) {
            if (isVigilError(error, 'store_closed') || isVigilError(error, 'store_unavailable')) throw error;
            rows.push({ inbox: id, unreadable: error instanceof Error ? error.message : String(error) });
          }
        }
        if (flags.json === true) printJson(rows);
        else if (rows.length === 0) return print('no inboxes yet');
        // The store's now (the database's clock on PostgreSQL): a lease is held until then, whatever this machine's clock says.
        else statusTable(rows, (await store.nextWake()).now);
        const unreadable = rows.filter((row) => 'unreadable' in row).length;
        if (unreadable > 0) throw new CommandFailed(`${unreadable} of ${rows.length} inboxes could not be read (listed above)`);
      }),
    );
}

type StatusRow = { inbox: string; stats: InboxStats } | { inbox: string; unreadable: string };

function statusTable(rows: StatusRow[], now: number): void {
  table(
    ['inbox', 'pending', 'running', 'done', 'dead', 'held', 'sent', 'timers', 'approvals', 'lease'],
    rows.map((row) => {
      if ('unreadable' in row) return [row.inbox, `unreadable: ${row.unreadable}`];
      const { inbox, stats } = row;
      return [
        inbox,
        stats.events.pending,
        stats.events.running,
        stats.events.done,
        stats.events.dead,
        stats.outbox.held,
        stats.outbox.sent,
        stats.timers,
        stats.approvalsPending,
        leaseCell(stats.lease, now),
      ];
    }),
  );
}

/** One inbox's usage against its quotas, one line each. */
function printUsage(usage: InboxUsage, limits: InboxLimits): void {
  print('');
  table(
    ['quota', 'used', 'limit'],
    [
      ['pending events', usage.pendingEvents, limits.pendingEventsPerInbox],
      ['pending bytes', usage.pendingBytes, limits.pendingBytesPerInbox],
      ['events this minute', usage.eventsThisMinute, limits.eventsPerMinutePerInbox],
    ],
  );
}

/**
 * A lease is held while `until >= now` (R2); past that (or released) it is
 * free and the next acquire takes it over. Showing it as held would send an
 * operator after a worker that no longer runs.
 */
export function leaseCell(lease: LeaseInfo | null, now: number): string {
  if (lease === null) return '-';
  const until = isoTime(lease.until);
  return lease.until < now ? `expired (last: ${lease.holder} gen ${lease.gen}, until ${until})` : `${lease.holder} gen ${lease.gen} until ${until}`;
}

const STATUSES: EventStatus[] = ['pending', 'running', 'done', 'dead'];

export function eventsCommand(): Command {
  return inboxCommand('events', "list an inbox's events, oldest first")
    .addOption(new Option('--status <status>', 'only events with this status').choices(STATUSES))
    .option('--limit <n>', 'at most this many', parsePositiveInt, 100)
    .option('--json', 'print JSON')
    .action(
      onStore(async (store, inboxId: string, flags: StoreFlags & { status?: EventStatus; limit: number; json?: boolean }) => {
        const events = await store.inbox(inboxId).events({ limit: flags.limit, ...(flags.status === undefined ? {} : { status: flags.status }) });
        if (flags.json === true) return printJson(events);
        if (events.length === 0) return print(flags.status === undefined ? `no events in ${inboxId}` : `no ${flags.status} events in ${inboxId}`);
        table(['id', 'status', 'attempts', 'source', 'sourceId', 'received', 'error'], events.map(eventRow));
      }),
    );
}

function eventRow(event: EventRow): (string | number)[] {
  const error = event.error ?? '';
  const detail = event.lastError !== null && event.lastError !== error ? `${error} (last: ${event.lastError})` : error;
  return [event.id, event.status, event.attempts, event.source, event.sourceId, isoTime(event.receivedAt), detail];
}

export function redriveCommand(): Command {
  return inboxCommand('redrive', 'make a dead event pending again with its attempts reset (exit 1 if it is not dead)')
    .argument('<eventId>', 'the event id (from `vigil events <inbox> --status dead`)', parsePositiveInt)
    .action(
      onStore(async (store, inboxId: string, eventId: number) => {
        const inbox = store.inbox(inboxId);
        if (!(await inbox.redrive(eventId))) throw new CommandFailed(`event ${eventId} in ${inboxId} is not dead (or does not exist); nothing changed`);
        await inbox.recordAction({ actor: cliActor(), action: 'redrive', target: `event ${eventId}`, result: redriveResult(true) });
        print(`event ${eventId} in ${inboxId} is pending again`);
      }),
    );
}

export function approveCommand(): Command {
  return inboxCommand('approve', 'answer an approval; prints the outcome that stands (exit 1 when it is not your answer: expired, unknown or answered before)')
    .argument('<id>', 'approval id')
    .argument('<answer>', 'yes or no')
    .action(async (inboxId: string, id: string, answer: string, flags: StoreFlags) => {
      // Checked before the store opens: a typo must not create a store.
      if (answer !== 'yes' && answer !== 'no') throw new UsageError(`answer must be yes or no, got ${JSON.stringify(answer)}`);
      await withStore(flags, async (store) => {
        const inbox = store.inbox(inboxId);
        const outcome = await inbox.answerApproval(id, answer);
        // Not for an approval never asked: recording it would create the inbox.
        if (outcome !== 'unknown') await inbox.recordAction({ actor: cliActor(), action: `answer ${answer}`, target: id, result: answerResult(answer, outcome) });
        print(outcome);
        if (outcome !== answer) throw new CommandFailed(`approval ${id} in ${inboxId}: ${outcome} stands, not ${answer}`);
      });
    });
}
