/** The chaos checks are not vacuous: each reports what it exists to catch. */
import { describe, expect, it } from 'vitest';
import { explainDeaths, type DeadHealthy } from '../../chaos/collateral.js';
import type { JournalRecord } from '../../chaos/journal.js';
import { checkLeases } from '../../chaos/leases.js';

const acquire = (holder: string, gen: number, askedAt: number, gotAt = askedAt + 1): JournalRecord => ({ k: 'acquire', inbox: 'x', holder, gen, askedAt, gotAt });
const release = (holder: string, gen: number, at: number): JournalRecord => ({ k: 'release', inbox: 'x', holder, gen, at });

describe('checkLeases', () => {
  it('reports two leases held at once, and a generation given to two holders', () => {
    const report = checkLeases([acquire('A', 1, 0), acquire('B', 2, 500), acquire('C', 2, 5_000)], 1_000);
    expect(report.overlaps).toEqual(['x: A gen 1 [1.0, 1000.0] and B gen 2 from 501.0']);
    expect(report.sharedGens).toEqual(['x gen 2: B, C']);
  });

  it('a release or an expired TTL ends a lease; a renewal extends it', () => {
    const records = [acquire('A', 1, 0), release('A', 1, 100), acquire('B', 2, 101), acquire('B', 2, 900), acquire('C', 3, 1_850)];
    expect(checkLeases(records, 1_000).overlaps).toEqual(['x: B gen 2 [102.0, 1900.0] and C gen 3 from 1851.0']);
    expect(checkLeases(records.slice(0, 4).concat(acquire('C', 3, 1_900)), 1_000).overlaps).toEqual([]);
  });

  it('a worker that died in a run step (stepping, no finish after it) may have released the lease: released from when it sent the step', () => {
    const stepping = (holder: string, gen: number, at: number): JournalRecord => ({ k: 'stepping', inbox: 'x', holder, gen, at });
    const finish = (holder: string, gen: number): JournalRecord => ({ k: 'finish', inbox: 'x', holder, gen, ids: [1], ok: true });
    // A's step released gen 1 in its commit and A died before it could say; B takes over at 300.
    expect(checkLeases([acquire('A', 1, 0), stepping('A', 1, 200), acquire('B', 2, 300)], 1_000).overlaps).toEqual([]);
    // A step that answered claimed more and went on (renewed): a takeover at 300 is two holders at once.
    const answered = [acquire('A', 1, 0), stepping('A', 1, 200), finish('A', 1), acquire('A', 1, 200, 210), acquire('B', 2, 300)];
    expect(checkLeases(answered, 1_000).overlaps).toEqual(['x: A gen 1 [1.0, 1200.0] and B gen 2 from 301.0']);
  });

  it('an acquire answered after its TTL ran out held nothing', () => {
    // A asked at 0 and heard back at 3000: gen 1 had lapsed by 1000, and B took gen 2 at 1500.
    expect(checkLeases([acquire('A', 1, 0, 3_000), acquire('B', 2, 1_500), release('A', 1, 3_010)], 1_000).overlaps).toEqual([]);
  });
});

describe('explainDeaths', () => {
  const dead: DeadHealthy = { inbox: 'x', id: 7, source: 'chaos', sourceId: 'e7', payload: {}, attempts: 2, status: 'dead', error: 'too many attempts', lastError: null, receivedAt: 0 };
  const claim = (holder: string, gen: number): JournalRecord => ({ k: 'claim', inbox: 'x', holder, gen, ids: [7], events: ['chaos/e7'], attempts: [1] });

  it('a healthy event dead because every attempt died with its worker is collateral', () => {
    const journal = [claim('w1', 1), claim('w2', 2), { k: 'finish', inbox: 'x', holder: 'w2', gen: 2, ids: [7], ok: false } as JournalRecord];
    expect(explainDeaths([dead], journal, new Set(['w1']))).toEqual({ collateral: ['x/chaos/e7: w1 died, lease lost'], unexplained: [] });
  });

  it('an attempt by an acquire-and-claim call that never answered, its worker dead, is collateral', () => {
    // Attempt 1 was claimed in the call's commit; the worker was killed before the call answered.
    const journal: JournalRecord[] = [{ k: 'acquiring', inbox: 'x', holder: 'w1' }, claim('w2', 2)];
    expect(explainDeaths([dead], journal, new Set(['w1', 'w2']))).toEqual({ collateral: ['x/chaos/e7: w2 died, claimed, then died'], unexplained: [] });
    // A call that answered accounts for nothing.
    const answered: JournalRecord[] = [{ k: 'acquiring', inbox: 'x', holder: 'w1' }, { k: 'acquired', inbox: 'x', holder: 'w1' }, claim('w2', 2)];
    expect(explainDeaths([dead], answered, new Set(['w1', 'w2'])).unexplained).toHaveLength(1);
  });

  it('an attempt whose worker lived on and never finished it leaves the death unexplained', () => {
    const { unexplained } = explainDeaths([dead], [claim('w1', 1), claim('w2', 2)], new Set(['w1']));
    expect(unexplained).toHaveLength(1);
    expect(explainDeaths([dead], [claim('w1', 1)], new Set(['w1'])).unexplained).toHaveLength(1); // fewer claims than attempts
  });
});
