/**
 * The service section's reading of the durable floor (bench/service-report.ts):
 * it names the rounds where the floor missed the goal and, apart from them,
 * the rounds where it reached it, so a round within reach is never read as
 * out of reach; and its table of /healthz under the load. The benchmark itself
 * (npm run bench) is not part of the suite.
 */
import { describe, expect, it } from 'vitest';
import { durableFloorParagraph, healthParagraph } from '../../bench/service-report.js';

const text = (durableOverBare: number[]): string => durableFloorParagraph(durableOverBare, [0.71, 0.69, 0.76], 1.04).join(' ');

describe('durableFloorParagraph', () => {
  it('says the goal is within reach when the floor reached it in every round', () => {
    const said = text([0.8, 0.9, 0.76]);
    expect(said).toContain('at or above the goal of 0.75x in every round');
    expect(said).toContain('Vigil reached 0.71x, 0.69x, 0.76x of the durable floor');
    expect(said).not.toContain('below the goal');
  });

  it('names the one round below the goal in the singular, and the rounds that reached it', () => {
    const said = text([0.82, 0.81, 0.67]);
    expect(said).toContain('below the goal of 0.75x in round 3.');
    expect(said).toContain('In rounds 1 and 2 the floor reached the goal, so there the goal is within reach');
    expect(said).not.toContain('those rounds');
  });

  it('says nothing is within reach when the floor missed the goal in every round', () => {
    const said = text([0.69, 0.64, 0.64]);
    expect(said).toContain('below the goal of 0.75x in rounds 1, 2, and 3.');
    expect(said).toContain("the load generator's limit (1.04 cores)");
    expect(said).not.toContain('within reach');
    expect(said).toContain('tombstones, reached 0.71x, 0.69x, 0.76x of the durable floor (the target proposed instead: at least 0.60x in each round)');
  });
});

describe('healthParagraph', () => {
  it('gives each Vigil server its row of /healthz times under the load, beside its webhook rate', () => {
    const probe = (perSecond: number, p50Ms: number) => ({ perSecond, probes: 480, p50Ms, p90Ms: p50Ms * 2, p99Ms: p50Ms * 4, maxMs: 44.5 });
    const lines = healthParagraph({ vigil: probe(7_512.4, 2.13), vigilMain: probe(8_020.6, 4.93) }, 10);
    expect(lines[0]).toContain('the same load for 10 s more');
    expect(lines).toContain('| Vigil, writer thread (as `vigil serve`) | 7,512 | 480 | 2.13 | 4.26 | 8.52 | 44.5 |');
    expect(lines).toContain('| Vigil, commits on the event loop | 8,021 | 480 | 4.93 | 9.86 | 19.7 | 44.5 |');
  });
});
