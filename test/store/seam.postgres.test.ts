/** The store's seam for the testing kit on PostgreSQL (seam-suite.ts). */
import { describe } from 'vitest';
import { throwawayStore } from '../../src/testing/index.js';
import { useTestDatabase } from '../postgres/test-database.js';
import { seamSuite } from './seam-suite.js';

const db = useTestDatabase('seam');

describe('the seam on PostgreSQL', () => seamSuite(() => throwawayStore({ url: db.url })));
