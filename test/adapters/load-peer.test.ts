/** A missing optional peer is a clear error naming what to install; any other failure passes through. */
import { expect, it } from 'vitest';
import { loadPeer } from '../../src/adapters/load-peer.js';
import { VigilError } from '../../src/errors.js';

it('a framework that is not installed is a VigilError that says which package to install', async () => {
  const missing = loadPeer('no-such-framework-xyz', 'ai-sdk', () => import('no-such-framework-xyz' as string));
  await expect(missing).rejects.toThrow(VigilError);
  await expect(loadPeer('no-such-framework-xyz', 'ai-sdk', () => import('no-such-framework-xyz' as string))).rejects.toThrow(
    'vigil-agents/ai-sdk needs the no-such-framework-xyz package, which is not installed: npm install no-such-framework-xyz',
  );
});

it('an installed framework loads; another error is not dressed up as a missing package', async () => {
  await expect(loadPeer('zod', 'ai-sdk', () => import('zod'))).resolves.toHaveProperty('z');
  await expect(loadPeer('x', 'mcp', () => Promise.reject(new TypeError('boom')))).rejects.toThrow(TypeError);
});
