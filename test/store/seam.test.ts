/** The store's seam for the testing kit on SQLite (seam-suite.ts). */
import { describe } from 'vitest';
import { throwawayStore } from '../../src/testing/index.js';
import { seamSuite } from './seam-suite.js';

describe('the seam on SQLite', () => seamSuite(() => throwawayStore()));
