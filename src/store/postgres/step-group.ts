/**
 * Group commit for run steps (run-step.ts): the steps of several inboxes
 * that are waiting at the same moment go to the server as one transaction
 * with one commit, where each alone is a transaction and a commit of its
 * own. What every transaction pays whatever it does (BEGIN, COMMIT, the
 * commit record and the wait for its flush, the round trip of the COMMIT)
 * is then paid once per group. graphile-worker's best configuration saves
 * on its completions the same way.
 *
 * Nothing about a step changes but the transaction it commits in:
 *   - each step is the same function call, on its own inbox's locked row;
 *     the group commits only once every call's answer is back, so a step
 *     cut off mid-call never commits (as callThenCommit);
 *   - the commit waits for the WAL flush, even where a refused acquire
 *     alone would not need it (SET LOCAL synchronous_commit TO DEFAULT:
 *     one member's "no flush" must not reach the others);
 *   - every step's wake-up hint goes out after the commit (vigil_wake
 *     sends each a step left: functions/ingest.sql);
 *   - the steps lock their inboxes in id order, so two groups never wait
 *     for each other in a cycle;
 *   - when a step fails (memory_full, a deadlock with some other writer),
 *     the group rolls back and each of its steps runs again alone, so one
 *     step's failure is only its own. A lost connection fails them all, as
 *     it would each one alone.
 * A step that finds no group waiting runs alone, as before: grouping costs
 * nothing when the store is not busy, and groups grow with the load.
 */
import type pg from 'pg';
import { commitThenWake, inOneWrite } from './connection.js';
import { isUnavailable } from './errors.js';
import { withClient } from './inbox-tx.js';
import type { Statement } from './call.js';

/** One run step: its call, and how it runs when it has no company. */
export interface GroupedStep {
  inboxId: string;
  statement: Statement;
  params: unknown[];
  /** Send the wake-up hints after the commit. */
  wake: boolean;
  alone: () => Promise<object[]>;
}

interface Waiting {
  step: GroupedStep;
  resolve: (rows: object[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups on the server at once. A group runs on one connection, one call
 * after another, and took about 9 ms whatever its size where measured;
 * more groups keep more server cores busy, fewer make larger ones. Two did
 * best of one, two and three (docs/design/postgres-store.md). While
 * both wait on another transaction's lock, the next steps wait for them.
 */
const GROUPS_IN_FLIGHT = 2;
/** A group's size is bounded so that no step waits behind a very long one. */
const MAX_GROUP = 16;

export class StepGroups {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
  ) {}

  run(step: GroupedStep): Promise<object[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ step, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Starts groups on the next turn of the event loop rather than now, so
   * that the steps of every run whose answer came in the same read join.
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= GROUPS_IN_FLIGHT || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < GROUPS_IN_FLIGHT && this.waiting.length > 0) {
        const share = Math.min(MAX_GROUP, Math.ceil(this.waiting.length / (GROUPS_IN_FLIGHT - this.inFlight)));
        const members = this.waiting.splice(0, share);
        this.inFlight += 1;
        void this.runGroup(members).finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
      }
    });
  }

  private async runGroup(members: Waiting[]): Promise<void> {
    if (members.length === 1) return settle(members[0]!, members[0]!.step.alone());
    let outcome: 'committed' | 'again alone';
    try {
      outcome = await this.commitTogether(members);
    } catch (error) {
      for (const member of members) member.reject(error);
      return;
    }
    if (outcome === 'again alone') await Promise.all(members.map((member) => settle(member, member.step.alone())));
  }

  /** Resolves every member and answers 'committed', or rolls back and answers 'again alone'; throws when the connection is lost. */
  private async commitTogether(members: Waiting[]): Promise<'committed' | 'again alone'> {
    members.sort((a, b) => (a.step.inboxId < b.step.inboxId ? -1 : a.step.inboxId > b.step.inboxId ? 1 : 0));
    return withClient(this.pool, async (client) => {
      const answers = await Promise.allSettled(
        inOneWrite(client, () => [
          client.query('BEGIN'),
          ...members.map(({ step }) => client.query({ name: step.statement.name, text: step.statement.text, values: step.params })),
          client.query('SET LOCAL synchronous_commit TO DEFAULT'),
        ]),
      );
      const failed = answers.find((answer) => answer.status === 'rejected');
      if (failed !== undefined) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (isUnavailable(failed.reason)) throw failed.reason;
        return 'again alone';
      }
      await commitThenWake(client, this.channel, members.some(({ step }) => step.wake));
      members.forEach((member, i) => member.resolve((answers[i + 1] as PromiseFulfilledResult<pg.QueryResult<object>>).value.rows));
      return 'committed';
    });
  }
}

function settle(member: Waiting, rows: Promise<object[]>): Promise<void> {
  return rows.then(member.resolve, member.reject);
}
