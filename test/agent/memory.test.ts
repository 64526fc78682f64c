/** ctx.memory (StagedMemory) over a real SQLite inbox: reads see this run's changes, limits count them as they happen. */
import { describe, expect, it } from 'vitest';
import { MEMORY_LIMITS } from '../../src/index.js';
import { StagedMemory } from '../../src/agent/memory.js';
import { tempStore } from '../runtime/helpers.js';

describe('StagedMemory', () => {
  it('calls made before the stored memory has loaded all land; deleting makes room for the next set', async () => {
    const { store } = await tempStore();
    const inbox = store.inbox('alice');
    const memory = new StagedMemory(inbox);
    await Promise.all([memory.set('a', 1), memory.set('b', 2), memory.delete('c')]);
    expect(await memory.list()).toEqual({ a: 1, b: 2 });
    expect(memory.pending()).toEqual({ set: { a: 1, b: 2 }, delete: ['c'] });

    const chunk = 'x'.repeat(MEMORY_LIMITS.valueBytes - 100);
    const fit = Math.floor(MEMORY_LIMITS.totalBytes / MEMORY_LIMITS.valueBytes);
    for (let i = 0; i < fit; i++) await memory.set(`k${i}`, chunk);
    await expect(memory.set('one-more', chunk)).rejects.toMatchObject({ code: 'memory_full' });
    expect(await memory.delete('k0')).toBe(true);
    await memory.set('one-more', chunk);
    await memory.set('one-more', chunk); // replacing a value does not count it twice
    expect(await memory.get('k0')).toBeUndefined();
    expect(Object.keys(await memory.list())).toHaveLength(fit + 2);
  });
});
