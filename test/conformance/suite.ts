/** Every rule's conformance tests, for one backend. */
import type { StoreTarget } from './harness.js';
import { r1Dedupe } from './r1-dedupe.js';

export function runStoreConformance(target: StoreTarget): void {
  r1Dedupe(target);
}
