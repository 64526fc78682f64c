/** `vigil timers <inbox>` and `vigil timer add|remove`: timers feed the inbox; `vigil serve` fires them. */
import { Command, Option } from 'commander';
import type { MissedPolicy, TimerRow, TimerSpec } from '../../store/contract.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { inboxCommand, onStore, type StoreFlags } from '../open-cli-store.js';
import { parseDuration, parseJson, parseTime } from '../parse.js';
import { isoTime, print, printJson, table } from '../print.js';

export function timersCommand(): Command {
  return inboxCommand('timers', "list an inbox's timers with their next due time")
    .option('--json', 'print JSON')
    .action(
      onStore(async (store, inboxId: string, flags: StoreFlags & { json?: boolean }) => {
        const timers = await store.inbox(inboxId).timers();
        if (flags.json === true) return printJson(timers);
        if (timers.length === 0) return print(`no timers in ${inboxId}`);
        table(['id', 'next due', 'schedule', 'missed', 'state', 'last skipped'], timers.map(timerRow));
      }),
    );
}

function timerRow(timer: TimerRow): (string | number)[] {
  const schedule = timer.cron !== null ? `cron ${timer.cron}${timer.tz === null ? '' : ` (${timer.tz})`}` : timer.every !== null ? `every ${timer.every} ms` : 'once';
  return [timer.id, isoTime(timer.due), schedule, timer.missed, timer.done ? 'done' : 'active', timer.lastSkipped ?? '-'];
}

interface AddFlags extends StoreFlags {
  due?: number;
  every?: number;
  cron?: string;
  tz?: string;
  payload?: unknown;
  missed?: MissedPolicy;
}

export function timerCommand(): Command {
  const timer = new Command('timer').description('add or remove a timer');
  timer.addCommand(
    inboxCommand('add', 'create or replace a timer: one-off (--due), interval (--every, first due --due or one interval from now) or cron (--cron, --tz)')
      .argument('<id>', 'timer id (adding an existing id replaces it)')
      .option('--due <when>', 'first (or only) occurrence: ISO time, epoch ms, or +<duration> such as +10m', (value) => parseTime(value))
      .option('--every <duration>', 'repeat interval: 30s, 5m, 1h, 1d or ms', parseDuration)
      .option('--cron <expr>', "cron expression, e.g. '0 9 * * *'")
      .option('--tz <zone>', 'IANA time zone for --cron, e.g. Europe/Berlin (default UTC)')
      .option('--payload <json>', 'a JSON object added to every event the timer makes', parseJson)
      .addOption(new Option('--missed <policy>', 'after an outage: one event for all missed occurrences, or one each').choices(['coalesce', 'each']))
      .action(
        onStore(async (store, inboxId: string, id: string, flags: AddFlags) => {
          const spec = timerSpec(id, flags);
          const inbox = store.inbox(inboxId);
          await inbox.addTimer(spec);
          const row = (await inbox.timers()).find((t) => t.id === id);
          print(`timer ${id} in ${inboxId}: next due ${row === undefined ? '?' : isoTime(row.due)}`);
        }),
      ),
  );
  timer.addCommand(
    inboxCommand('remove', 'delete a timer (exit 1 if there is none)')
      .argument('<id>', 'timer id')
      .action(
        onStore(async (store, inboxId: string, id: string) => {
          if (!(await store.inbox(inboxId).removeTimer(id))) throw new CommandFailed(`no timer ${id} in ${inboxId}`);
          print(`timer ${id} removed from ${inboxId}`);
        }),
      ),
  );
  return timer;
}

function timerSpec(id: string, flags: AddFlags): TimerSpec {
  if (flags.due === undefined && flags.every === undefined && flags.cron === undefined) throw new UsageError('give --due, --every or --cron');
  if (flags.every !== undefined && flags.cron !== undefined) throw new UsageError('--every and --cron cannot be combined');
  if (flags.tz !== undefined && flags.cron === undefined) throw new UsageError('--tz goes with --cron');
  const payload = flags.payload;
  if (payload !== undefined && (typeof payload !== 'object' || payload === null || Array.isArray(payload))) throw new UsageError('--payload must be a JSON object');
  const spec: TimerSpec = { id };
  if (flags.cron !== undefined) {
    spec.cron = flags.cron;
    spec.tz = flags.tz ?? 'UTC';
  }
  if (flags.every !== undefined) spec.every = flags.every;
  // An interval's first occurrence defaults to one interval from now, as `setInterval` would.
  const due = flags.due ?? (flags.every !== undefined ? Date.now() + flags.every : undefined);
  if (due !== undefined) spec.due = due;
  if (payload !== undefined) spec.payload = payload as Record<string, unknown>;
  if (flags.missed !== undefined) spec.missed = flags.missed;
  return spec;
}
