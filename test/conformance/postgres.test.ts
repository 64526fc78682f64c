import { openStore } from '../../src/index.js';
import { useTestDatabase } from '../postgres/test-database.js';
import type { StoreTarget } from './harness.js';
import { runStoreConformance } from './suite.js';

const db = useTestDatabase('conformance');

const postgres: StoreTarget = {
  name: 'postgres',
  capabilities: { databaseClock: true },
  async open(options) {
    // A fresh schema per store; reopen() is a second pool on the same schema.
    const schema = db.freshSchema();
    return {
      store: await openStore(db.url, { ...options, schema }),
      reopen: (more) => openStore(db.url, { ...options, ...more, schema }),
      async rawWrite(inboxId, column, value) {
        // The lease is kept on the inbox's own row here.
        const [table, name] = column === 'lease.gen' ? ['inboxes', 'gen'] : (column.split('.') as [string, string]);
        await db.query(`UPDATE ${schema}.${table} SET ${name} = $1::bigint WHERE inbox_id = $2`, [value, inboxId]);
      },
    };
  },
};

runStoreConformance(postgres);
