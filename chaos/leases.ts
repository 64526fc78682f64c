/**
 * R2 across processes, from the grant log: no two leases on one inbox are
 * held at the same moment, and no generation of an inbox goes to two
 * holders.
 *
 * A lease (inbox, holder, gen) counts as held from the first time acquire
 * returned it until the worker released it or its TTL ran out, counted
 * from when the last successful acquire (the grant or a renewal) was
 * *sent*: the store's own expiry can only be later. A killed worker never
 * releases: its lease is held until that TTL, unless it died in a run step
 * that may have released it (a `stepping` record with no `finish` after it:
 * released from when the step was sent). Times are the wall clock both
 * stores decide leases with (journal.ts), in whole milliseconds. An
 * acquire slower than the TTL (a loaded machine) returns a lease that had
 * already lapsed: held for no moment at all.
 */
import type { JournalRecord } from './journal.js';

type Acquire = Extract<JournalRecord, { k: 'acquire' }>;
type Release = Extract<JournalRecord, { k: 'release' }>;

export interface LeaseReport {
  grants: number;
  leases: number;
  overlaps: string[];
  sharedGens: string[];
}

interface Lease {
  inbox: string;
  holder: string;
  gen: number;
  from: number;
  lastAsked: number;
  releasedAt: number;
}

export function checkLeases(records: readonly JournalRecord[], leaseTtlMs: number): LeaseReport {
  const leases = new Map<string, Lease>();
  const holdersByGen = new Map<string, Set<string>>();
  let grants = 0;
  for (const record of records) {
    if (record.k !== 'acquire') continue;
    grants += 1;
    const r: Acquire = record;
    const genKey = `${r.inbox} gen ${r.gen}`;
    holdersByGen.set(genKey, (holdersByGen.get(genKey) ?? new Set()).add(r.holder));
    const key = `${genKey}\u0000${r.holder}`;
    const lease = leases.get(key);
    if (lease === undefined) leases.set(key, { inbox: r.inbox, holder: r.holder, gen: r.gen, from: r.gotAt, lastAsked: r.askedAt, releasedAt: Infinity });
    else {
      lease.from = Math.min(lease.from, r.gotAt);
      lease.lastAsked = Math.max(lease.lastAsked, r.askedAt);
    }
  }
  // A run step a worker died in (a `stepping` with no `finish` after it, in
  // that worker's own records) may have released the lease in its commit:
  // it counts as a release asked for when the step was sent.
  const unanswered = new Map<string, Release>();
  const releases: Release[] = [];
  for (const record of records) {
    if (record.k === 'release') releases.push(record);
    else if (record.k === 'stepping') unanswered.set(`${record.inbox} gen ${record.gen}\u0000${record.holder}`, { ...record, k: 'release' });
    else if (record.k === 'finish') unanswered.delete(`${record.inbox} gen ${record.gen}\u0000${record.holder}`);
  }
  for (const r of [...releases, ...unanswered.values()]) {
    const lease = leases.get(`${r.inbox} gen ${r.gen}\u0000${r.holder}`);
    if (lease !== undefined) lease.releasedAt = Math.min(lease.releasedAt, r.at);
  }
  const byInbox = new Map<string, { name: string; from: number; until: number }[]>();
  for (const lease of leases.values()) {
    const until = Math.min(lease.releasedAt, lease.lastAsked + leaseTtlMs);
    // An acquire that took longer than the TTL to answer returned a lease already lapsed:
    // the worker never held it for a moment (whatever it does with it is fenced).
    if (until <= lease.from) continue;
    const list = byInbox.get(lease.inbox) ?? [];
    list.push({ name: `${lease.holder} gen ${lease.gen}`, from: lease.from, until });
    byInbox.set(lease.inbox, list);
  }
  const overlaps: string[] = [];
  for (const [inbox, list] of byInbox) {
    list.sort((a, b) => a.from - b.from);
    // Sorted by start: a lease overlaps a later one iff that one starts before it ends.
    let longest = list[0];
    for (const next of list.slice(1)) {
      if (longest !== undefined && next.from < longest.until) {
        overlaps.push(`${inbox}: ${longest.name} [${longest.from.toFixed(1)}, ${longest.until.toFixed(1)}] and ${next.name} from ${next.from.toFixed(1)}`);
      }
      if (longest === undefined || next.until > longest.until) longest = next;
    }
  }
  const sharedGens = [...holdersByGen].filter(([, holders]) => holders.size > 1).map(([gen, holders]) => `${gen}: ${[...holders].join(', ')}`);
  return { grants, leases: leases.size, overlaps, sharedGens };
}
