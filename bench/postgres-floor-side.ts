/**
 * The floor under Vigil's default-claim run: the same durable row changes,
 * in plain SQL, on the schema Vigil's migrations made, with the events
 * stored the same way (seedRuns), and none of Vigil's rules around them.
 *
 * Per inbox, as Vigil's run steps: one statement that takes the lease (a new
 * generation) and claims the pending events (status, attempts, claim_gen,
 * last_claim_at), committed and flushed; then BEGIN pipelined with one
 * statement that marks them done, queues one reply in the outbox and ends
 * the lease, and COMMIT once its answer is back (flushed). Three round trips
 * and two durable commits, the same index entries per event: Vigil's steps
 * when each commits alone. Vigil's store puts the steps of runs that wait
 * at the same moment in one commit (src/store/postgres/step-group.ts); the
 * floor does not, so Vigil can pass it.
 *
 * Left out, each a part of Vigil's cost this measures: the inbox row lock
 * bumped first in every step, the fencing checks (the finish here trusts its
 * ids), the probes for abandoned and exhausted events and the retry order,
 * the work table that readyInboxes reads (runners here walk the inbox list),
 * and the wake-up hint. So no implementation of Vigil's contract on this
 * schema that commits each step alone can do less per run.
 */
import pg from 'pg';
import { inOneWrite } from '../src/store/postgres/connection.js';
import { dropSchema, settle, settledCounters, workSince } from './postgres-server.js';
import { inboxName, replyBody, type PgPlan } from './postgres-workload.js';
import { elapsedSeconds, startTimer } from './timing.js';
import { seedRuns, type RunFigures } from './vigil-postgres-side.js';

/** Vigil's default batchLimit: every inbox of the plan is one batch. */
const BATCH = 100;
const LEASE_MS = 30_000;

export async function floorRuns(url: string, schema: string, admin: pg.Pool, plan: PgPlan): Promise<RunFigures> {
  if (plan.perInbox > BATCH) throw new Error(`the floor runs one batch per inbox: at most ${BATCH} events each`);
  await seedRuns(url, schema, admin, plan);
  try {
    await settle(admin, schema);
    const before = await settledCounters(admin);
    const pool = new pg.Pool({ connectionString: url, max: 10, application_name: 'vigil-bench-floor', pipeline: true } as pg.PoolConfig);
    let figures: Omit<RunFigures, 'work'>;
    try {
      figures = await timedFloor(pool, schema, plan);
    } finally {
      await pool.end();
    }
    return { ...figures, work: workSince(before, await settledCounters(admin)) };
  } finally {
    await dropSchema(admin, schema);
  }
}

async function timedFloor(pool: pg.Pool, schema: string, plan: PgPlan): Promise<Omit<RunFigures, 'work'>> {
  const claim = {
    name: 'floor_claim',
    text: `WITH lease AS (
             UPDATE ${schema}.inboxes SET holder = $2, gen = gen + 1, lease_until = $3::bigint + ${LEASE_MS}
             WHERE inbox_id = $1 AND (lease_until IS NULL OR lease_until < $3)
             RETURNING gen
           ), picked AS (
             SELECT id FROM ${schema}.events WHERE inbox_id = $1 AND status = 'pending' ORDER BY id LIMIT ${BATCH}
           )
           UPDATE ${schema}.events e
           SET status = 'running', attempts = e.attempts + 1, claim_gen = lease.gen, last_claim_at = $3
           FROM picked, lease
           WHERE e.inbox_id = $1 AND e.id = picked.id AND e.status = 'pending'
           RETURNING e.id, lease.gen`,
  };
  const finish = {
    name: 'floor_finish',
    text: `WITH done AS (
             UPDATE ${schema}.events SET status = 'done', error = NULL, finished_at = $4
             WHERE inbox_id = $1 AND id = ANY ($2::bigint[]) AND status = 'running' AND claim_gen = $3
             RETURNING 1
           ), reply AS (
             INSERT INTO ${schema}.outbox (inbox_id, body, urgent, created_at) VALUES ($1, $5, false, $4)
           ), released AS (
             UPDATE ${schema}.inboxes SET lease_until = $4::bigint - 1 WHERE inbox_id = $1 AND gen = $3
           )
           SELECT count(*)::int AS done FROM done`,
  };
  const inboxes = Array.from({ length: plan.inboxes }, (_, i) => inboxName(i));
  let done = 0;
  const run = async (holder: string, inbox: string): Promise<void> => {
    const claimed = (await pool.query<{ id: string; gen: string }>({ ...claim, values: [inbox, holder, Date.now()] })).rows;
    if (claimed.length === 0) throw new Error(`floor: ${holder} claimed nothing in ${inbox}`);
    const client = await pool.connect();
    try {
      // BEGIN and the statement in one write, as Vigil's finish sends them.
      const [, answer] = await Promise.all(
        inOneWrite(client, () => [
          client.query('BEGIN'),
          client.query<{ done: number }>({ ...finish, values: [inbox, claimed.map((r) => r.id), claimed[0]!.gen, Date.now(), replyBody(inbox, claimed.length)] }),
        ]),
      );
      const finished = answer.rows[0]?.done;
      if (finished !== claimed.length) throw new Error(`floor: ${inbox} finished ${finished} of ${claimed.length}`);
      await client.query('COMMIT');
      done += claimed.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const started = startTimer();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: plan.concurrency }, async (_, i) => {
      for (let inbox = inboxes.shift(); inbox !== undefined; inbox = inboxes.shift()) await run(`runner-${i}`, inbox);
    }),
  );
  const seconds = elapsedSeconds(started);
  const used = process.cpuUsage(cpu);
  const total = plan.inboxes * plan.perInbox;
  const [row] = (
    await pool.query<{ done: number; replies: number }>(
      `SELECT (SELECT count(*)::int FROM ${schema}.events WHERE status = 'done') AS done, (SELECT count(*)::int FROM ${schema}.outbox) AS replies`,
    )
  ).rows;
  if (done !== total || row?.done !== total || row.replies !== plan.inboxes) {
    throw new Error(`floor: ${done} events handled, ${row?.done} done, ${row?.replies} replies; expected ${total} and ${plan.inboxes}`);
  }
  return { eventsPerSecond: total / seconds, runs: plan.inboxes, seconds, clientCpuMs: (used.user + used.system) / 1000 };
}
