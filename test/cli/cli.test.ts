/**
 * The `vigil` CLI as scripts use it: each command run as a real process
 * against a real SQLite directory, checked by its output and exit code
 * (0 ok, 1 failure, 2 usage or config error).
 */
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, openStore } from '../../src/index.js';
import { INBOX_SCHEMA } from '../../src/store/sqlite/migrate.js';
import { ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { perInboxSecret } from '../../src/http/webhooks/source-secret.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

const COMMANDS = ['init', 'serve', 'dev', 'proxy', 'ingest', 'status', 'events', 'redrive', 'approve', 'effects', 'settings', 'secret', 'timers', 'timer', 'timer add', 'timer remove', 'migrate', 'prune', 'export', 'import', 'delete', 'migrate-store', 'demo'];

/** A fresh store directory and the `--store` flag naming it. */
function storeDir(): { dir: string; flag: string[] } {
  const dir = harness.tempDir('vigil-cli-');
  return { dir, flag: ['--store', `sqlite:${dir}`] };
}

describe('help and usage errors', () => {
  it('vigil --help lists every command and the exit codes', async () => {
    const { code, stdout } = await harness.cli(['--help']);
    expect(code).toBe(0);
    for (const command of ['init', 'serve', 'dev', 'ingest', 'status', 'events', 'redrive', 'approve', 'settings', 'secret', 'timers', 'timer', 'migrate', 'demo', 'proxy']) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(stdout).toContain('Exit codes:');
  });

  it.each(COMMANDS)('vigil %s --help exits 0 with its usage and the exit codes', async (command) => {
    const { code, stdout } = await harness.cli([...command.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: vigil ${command}`);
    expect(stdout).toContain('Exit codes:');
  });

  const USAGE_ERRORS: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['a missing argument', ['ingest', 'alice'], /missing required argument 'source'/],
    ['a --payload that is not JSON', ['ingest', 'alice', 'chat', 'm1', '--payload', '{nope'], /not valid JSON/],
    ['an invalid inbox id', ['status', 'Not An Inbox'], /inbox/i],
    ['an unknown --status', ['events', 'alice', '--status', 'lost'], /Allowed choices are pending, running, done, dead/],
    ['an answer other than yes or no', ['approve', 'alice', 'refund-1', 'maybe'], /answer must be yes or no/],
    ['a timer without a schedule', ['timer', 'add', 'alice', 't1'], /give --due, --every or --cron/],
    ['a bad duration', ['timer', 'add', 'alice', 't1', '--every', 'soon'], /duration/],
  ];
  it.each(USAGE_ERRORS)('%s exits 2 and says what is wrong', async (_name, args, message) => {
    const { code, stderr } = await harness.cli([...args, ...storeDir().flag]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('an unknown store URL exits 2', async () => {
    const { code, stderr } = await harness.cli(['status', '--store', 'mysql://x']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown store URL/);
  });
});

describe('config errors exit 2 and name the field', () => {
  it('a missing secret, an unknown key, bad JSON, a missing file, a .ts config with a bad type', async () => {
    const dir = harness.tempDir('vigil-cli-config-');
    const missingSecret = harness.writeConfig(dir, { sources: { github: { type: 'github' } }, colour: 'blue' }, 'missing-secret.json');
    let result = await harness.cli(['serve', '--config', missingSecret]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('sources.github.secret: required');
    expect(result.stderr).toContain('colour: unknown key');

    const badJson = join(dir, 'bad.json');
    writeFileSync(badJson, '{ "port": 8787, }');
    result = await harness.cli(['serve', '--config', badJson]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('is not valid JSON')]);

    result = await harness.cli(['status', '--config', join(dir, 'absent.json')]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('cannot read config')]);

    const ts = join(dir, 'vigil.config.ts');
    writeFileSync(ts, "const port: unknown = 'eighty';\nexport default { port, workers: { concurrency: 0 } };\n");
    result = await harness.cli(['serve', '--config', ts]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('port: Invalid input: expected number, received string');
    expect(result.stderr).toContain('workers.concurrency:');
  });

  it('a secret read from an unset environment variable stops serve before it listens', async () => {
    const dir = harness.tempDir('vigil-cli-config-');
    const config = harness.writeConfig(dir, { store: 'sqlite:./data', port: 0, sources: { github: { type: 'github', secret: 'env:VIGIL_TEST_UNSET_SECRET' } } });
    const result = await harness.cli(['serve', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('sources.github.secret');
    expect(result.stderr).toContain('VIGIL_TEST_UNSET_SECRET');
    // A command that only opens the store reads the same file without needing the service's secrets.
    const status = await harness.cli(['status', '--config', config]);
    expect([status.code, status.stderr]).toEqual([0, '']);
  });
});

describe('vigil secret', () => {
  it("prints one inbox's webhook secret for a source with a secret per inbox, and nothing else", async () => {
    const dir = harness.tempDir('vigil-cli-secret-');
    const master = 'cli-master-secret-0123456789abcdef0123';
    const config = harness.writeConfig(dir, {
      sources: {
        gh: { type: 'github', secret: { derive: 'env:CLI_MASTER' } },
        fixed: { type: 'github', secret: 'a-fixed-secret-0123456789abcdef0123' },
        // The service's other secrets need not be in this command's environment: it reads the one master.
        pay: { type: 'stripe', secret: 'env:NOT_SET_FOR_THE_CLI' },
      },
    });
    const env = { CLI_MASTER: master };
    const alice = await harness.cli(['secret', 'alice', 'gh', '--config', config], { env });
    expect(alice).toEqual({ code: 0, stdout: `${perInboxSecret(master, 'gh', 'alice')}\n`, stderr: '' });
    const bob = await harness.cli(['secret', 'bob', 'gh', '--config', config], { env });
    expect(bob.stdout).not.toBe(alice.stdout);

    for (const [args, message] of [
      [['secret', 'alice', 'fixed'], 'source fixed has one fixed secret for every inbox'],
      [['secret', 'alice', 'nope'], 'no source named "nope"'],
      [['secret', '../etc', 'gh'], 'inbox id'],
    ] as const) {
      const refused = await harness.cli([...args, '--config', config], { env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).toBe('');
    }
    const unset = await harness.cli(['secret', 'alice', 'gh', '--config', config], { env: { CLI_MASTER: '' } });
    expect([unset.code, unset.stderr]).toEqual([2, expect.stringContaining('sources.gh.secret.derive: environment variable CLI_MASTER is not set')]);
  });
});

describe('inbox commands', () => {
  it('ingest stores once; status and events show it', async () => {
    const { flag } = storeDir();
    let result = await harness.cli(['ingest', 'alice', 'chat', 'm1', '--payload', '{"text":"hi"}', ...flag]);
    expect([result.code, result.stdout]).toEqual([0, 'stored chat/m1 in alice\n']);
    result = await harness.cli(['ingest', 'alice', 'chat', 'm1', '--payload', '{"text":"hi"}', ...flag]);
    expect([result.code, result.stdout]).toEqual([0, 'duplicate: chat/m1 is already in alice; nothing stored\n']);

    result = await harness.cli(['status', ...flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^inbox +pending +running +done +dead/);
    expect(result.stdout).toMatch(/^alice +1 +0 +0 +0 /m);

    result = await harness.cli(['status', 'alice', '--json', ...flag]);
    expect(JSON.parse(result.stdout)).toMatchObject({ events: { pending: 1, running: 0, done: 0, dead: 0 }, outbox: { held: 0, sent: 0 } });

    result = await harness.cli(['events', 'alice', '--json', ...flag]);
    expect((JSON.parse(result.stdout) as { sourceId: string; payload: unknown }[]).map((e) => [e.sourceId, e.payload])).toEqual([['m1', { text: 'hi' }]]);
    result = await harness.cli(['events', 'alice', '--status', 'dead', ...flag]);
    expect([result.code, result.stdout]).toEqual([0, 'no dead events in alice\n']);
  });

  it('status shows a lease that is held as held, and one past its time as expired', async () => {
    const { dir, flag } = storeDir();
    const now = Date.now();
    // bob's lease was taken an hour ago (a clock an hour behind) with a 60 s TTL: long expired by now.
    const past = await openStore(`sqlite:${dir}`, { clock: () => now - 3_600_000, leaseTtlMs: 60_000 });
    const present = await openStore(`sqlite:${dir}`, { leaseTtlMs: 600_000 });
    try {
      expect(await past.inbox('bob').acquire('w-old')).toBe(1);
      expect(await present.inbox('alice').acquire('w-live')).toBe(1);
    } finally {
      await past.close();
      await present.close();
    }
    const result = await harness.cli(['status', ...flag]);
    expect(result.code).toBe(0);
    const bobUntil = new Date(now - 3_600_000 + 60_000).toISOString();
    expect(result.stdout).toMatch(new RegExp(`^bob .* expired \\(last: w-old gen 1, until ${bobUntil.replace(/\./g, '\\.')}\\)$`, 'm'));
    expect(result.stdout).toMatch(/^alice .* w-live gen 1 until \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    expect(result.stdout).not.toMatch(/alice .*expired/);
  });

  it('events --status dead lists a poison event; redrive makes it pending once (exit 1 the second time)', async () => {
    const { dir, flag } = storeDir();
    // A poison event: claimed by workers that die, until the claim count passes maxAttempts.
    const clock = createFakeClock(Date.now());
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now, maxAttempts: 1, leaseTtlMs: 1_000 });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'poison', payload: { text: 'x' } });
    const gen = (await inbox.acquire('w1'))!;
    await inbox.claimBatch('w1', gen);
    clock.advance(60_000);
    await inbox.claimBatch('w2', (await inbox.acquire('w2'))!);
    const id = (await inbox.getEvent('chat', 'poison'))!.id;
    expect((await inbox.getEvent('chat', 'poison'))!.status).toBe('dead');
    await store.close();

    let result = await harness.cli(['events', 'alice', '--status', 'dead', ...flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^${id} +dead +1 +chat +poison `, 'm'));
    result = await harness.cli(['redrive', 'alice', String(id), ...flag]);
    expect([result.code, result.stdout]).toEqual([0, `event ${id} in alice is pending again\n`]);
    result = await harness.cli(['redrive', 'alice', String(id), ...flag]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not dead');
    // Recorded in the inbox, as the dashboard's actions are: the one that changed something.
    const reopened = await openStore(`sqlite:${dir}`);
    const actions = await reopened.view('alice').actions();
    await reopened.close();
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({ action: 'redrive', target: `event ${id}`, result: 'pending again' });
    expect(actions[0]!.actor).toMatch(/^cli/);
  });

  it('approve prints the outcome that stands; exit 1 when it is not the answer given', async () => {
    const { dir, flag } = storeDir();
    const store = await openStore(`sqlite:${dir}`);
    await store.inbox('alice').requestApproval({ id: 'refund-9', expiresInMs: 3600_000, action: { type: 'refund', order: '9' } });
    await store.close();

    let result = await harness.cli(['approve', 'alice', 'refund-9', 'yes', ...flag]);
    expect([result.code, result.stdout]).toEqual([0, 'yes\n']);
    result = await harness.cli(['approve', 'alice', 'refund-9', 'no', ...flag]);
    expect([result.code, result.stdout]).toEqual([1, 'yes\n']);
    result = await harness.cli(['approve', 'alice', 'never-asked', 'yes', ...flag]);
    expect([result.code, result.stdout]).toEqual([1, 'unknown\n']);
    result = await harness.cli(['approve', 'bob', 'never-asked', 'yes', ...flag]);
    expect([result.code, result.stdout]).toEqual([1, 'unknown\n']);
    const reopened = await openStore(`sqlite:${dir}`);
    const actions = await reopened.view('alice').actions();
    expect(await reopened.inboxes()).toEqual(['alice']); // nothing recorded (or created) for bob
    await reopened.close();
    expect(actions.map((a) => [a.action, a.target, a.result])).toEqual([
      ['answer no', 'refund-9', 'already answered yes'],
      ['answer yes', 'refund-9', 'yes'],
    ]);
  });
});

describe('settings', () => {
  it('prints them; --set / --unset change them as one merge patch and print the result; a bad one exits 2 naming it, changing nothing', async () => {
    const { dir, flag } = storeDir();
    let result = await harness.cli(['settings', 'alice', ...flag]);
    expect([result.code, JSON.parse(result.stdout)]).toEqual([0, {}]);
    result = await harness.cli([
      'settings', 'alice', ...flag,
      '--set', 'outbox.gapMs=0', '--set', 'outbox.quietHours.from=22:00', '--set', 'outbox.quietHours.to=07:00',
      '--set', 'outbox.quietHours.timeZone=Europe/Berlin', '--set', 'contacts.slack=D0123',
    ]);
    expect([result.code, JSON.parse(result.stdout)]).toEqual([
      0,
      { contacts: { slack: 'D0123' }, outbox: { gapMs: 0, quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' } } },
    ]);
    result = await harness.cli(['settings', 'alice', ...flag, '--unset', 'outbox.quietHours', '--set', 'wake.debounceMs=2000']);
    expect(JSON.parse(result.stdout)).toEqual({ contacts: { slack: 'D0123' }, outbox: { gapMs: 0 }, wake: { debounceMs: 2000 } });
    result = await harness.cli(['settings', 'alice', ...flag, '--set', 'outbox.gapMs=-5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid_settings|outbox\.gapMs/);
    const store = await openStore(`sqlite:${dir}`);
    expect((await store.inbox('alice').settings()).outbox).toEqual({ gapMs: 0 });
    await store.close();
  });

  it("the operator's budget and the person's time zone: --set them; a fractional token count exits 2 naming it", async () => {
    const { flag } = storeDir();
    let result = await harness.cli(['settings', 'ana', ...flag, '--set', 'timeZone=America/New_York', '--set', 'budget.costPerDayUsd=0.75', '--set', 'budget.tokensPerDay=5000']);
    expect([result.code, JSON.parse(result.stdout)]).toEqual([0, { timeZone: 'America/New_York', budget: { tokensPerDay: 5000, costPerDayUsd: 0.75 } }]);
    result = await harness.cli(['settings', 'ana', ...flag, '--set', 'budget.tokensPerDay=1.5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('budget.tokensPerDay');
  });
});

describe('timers, migrate, demo', () => {
  it('timer add (interval, cron with a zone, one-off), timers lists them, timer remove', async () => {
    const { flag } = storeDir();
    expect((await harness.cli(['timer', 'add', 'alice', 'poll', '--every', '1h', '--payload', '{"task":"poll"}', ...flag])).code).toBe(0);
    expect((await harness.cli(['timer', 'add', 'alice', 'digest', '--cron', '0 9 * * *', '--tz', 'Europe/Berlin', ...flag])).code).toBe(0);
    const once = await harness.cli(['timer', 'add', 'alice', 'once', '--due', '2031-01-02T03:04:05Z', ...flag]);
    expect([once.code, once.stdout]).toEqual([0, 'timer once in alice: next due 2031-01-02T03:04:05.000Z\n']);

    const listed = await harness.cli(['timers', 'alice', '--json', ...flag]);
    const timers = JSON.parse(listed.stdout) as { id: string; every: number | null; cron: string | null; tz: string | null; payload: unknown }[];
    expect(timers.map((t) => [t.id, t.every, t.cron, t.tz])).toEqual([
      ['digest', null, '0 9 * * *', 'Europe/Berlin'],
      ['once', null, null, null],
      ['poll', 3_600_000, null, null],
    ]);
    expect((await harness.cli(['timers', 'alice', ...flag])).stdout).toMatch(/^digest +\S+ +cron 0 9 \* \* \* \(Europe\/Berlin\)/m);

    expect((await harness.cli(['timer', 'remove', 'alice', 'poll', ...flag])).code).toBe(0);
    expect((await harness.cli(['timer', 'remove', 'alice', 'poll', ...flag])).code).toBe(1);
  });

  it("a row out of range: timer add refuses one, and timers and status still read one an older version wrote", async () => {
    const { dir, flag } = storeDir();
    // Issue 49, finding 1: an every of 2^53-1 is refused now (exit 2, invalid_timer)...
    const refused = await harness.cli(['timer', 'add', 'bob', 'huge', '--every', '9007199254740991', '--due', '2031-01-02T03:04:05Z', ...flag]);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('every must be a whole number of milliseconds from 1 to 315576000000')]);
    // ...but a row an older version wrote (here by SQL) must not end the listing with "Invalid time value".
    for (const inbox of ['alice', 'bob']) expect((await harness.cli(['timer', 'add', inbox, 'poll', '--every', '1h', ...flag])).code).toBe(0);
    const file = new Database(join(dir, 'bob.db'));
    file.prepare("UPDATE timers SET due = CAST('9223372036854775807' AS INTEGER)").run();
    file.close();
    const timers = await harness.cli(['timers', 'bob', ...flag]);
    expect([timers.code, timers.stdout]).toEqual([0, expect.stringMatching(/^poll +out of range \(9223372036854776000\) +every 3600000 ms/m)]);
    const status = await harness.cli(['status', ...flag]);
    expect([status.code, status.stdout]).toEqual([0, expect.stringMatching(/^alice +0 +0 +0 +0 [^\n]*\nbob +0 +0 +0 +0 /m)]);
  });

  it('migrate opens every inbox file and prints the schema version', async () => {
    const { flag } = storeDir();
    await harness.cli(['ingest', 'alice', 'chat', 'm1', ...flag]);
    const result = await harness.cli(['migrate', ...flag]);
    expect([result.code, result.stdout]).toEqual([0, `schema version ${INBOX_SCHEMA.latestVersion()} (1 inbox file checked)\n`]);
  });

  it('demo plays the eight scenarios, each with what it shows', async () => {
    const result = await harness.cli(['demo']);
    expect(result.code).toBe(0);
    for (let n = 1; n <= 8; n++) expect(result.stdout).toMatch(new RegExp(`^${n}\\. .+\\n   why: .+$`, 'm'));
    expect(result.stdout).toContain('All eight scenarios ran');
  });

  it('demo writes values as JavaScript does, not as the Python reference prints them', async () => {
    const { stdout } = await harness.cli(['demo']);
    expect(stdout).toContain('first: true  retry: false  rows: 1');
    expect(stdout).toContain('A: 1  B: null');
    expect(stdout).toContain('A finishes its old claim (gen 1): false');
    expect(stdout).toContain('msg-3: { status: "done", attempts: 2 }  outbox rows: 1');
    expect(stdout).toContain('W0 claimed ["poison", "healthy"] and crashed');
    expect(stdout).toContain('sends: ["update 0", "update 1 | update 2"]');
    expect(stdout).not.toMatch(/\b(True|False|None)\b|\('|\['/);
  });
});

describe('serve with a .mjs or .ts config, and the CLI beside it', () => {
  it('an event ingested by the CLI is run by the service and its reply printed by the console channel', async () => {
    const dir = harness.tempDir('vigil-cli-serve-');
    const config = join(dir, 'vigil.config.mjs');
    writeFileSync(config, "export default { store: 'sqlite:./data', port: 0, engine: { outboxGapMs: 0 }, workers: { pollIntervalMs: 100 } };\n");
    const serve = harness.serve(config);
    await serve.url();
    const ingest = await harness.cli(['ingest', 'dora', 'chat', 'c1', '--payload', '{"text":"from the CLI"}', '--config', config]);
    expect(ingest.code).toBe(0);
    await serve.log('run finished', (line) => line.msg === 'run finished' && line.inboxId === 'dora');
    await serve.log('outbox sent', (line) => line.msg === 'outbox sent' && line.inboxId === 'dora');
    // Not a terminal: the console channel prints a JSON record, the reply its body.
    await waitFor('the reply, printed', () => serve.printed.includes('You said: "from the CLI"'));
    serve.signal('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
  });

  it('a .ts config is loaded', async () => {
    const dir = harness.tempDir('vigil-cli-serve-');
    const config = join(dir, 'vigil.config.ts');
    writeFileSync(config, "const port: number = 0;\nexport default { store: 'sqlite:./data', port, log: { level: 'info' as const } };\n");
    const serve = harness.serve(config);
    expect(await serve.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    serve.signal('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
  });
});
