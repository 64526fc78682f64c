/**
 * The proxy reads an agent's request body from node:http up to its limit,
 * counting while it reads: checking the size after buffering would let one
 * agent make the proxy hold a body of any size, and Content-Length alone is
 * not enough (chunked bodies have none, and a client may lie). Nothing is
 * forwarded before the whole body is known to fit.
 */
import type { IncomingMessage } from 'node:http';

/** The body, or a rejection with `tooLarge()` as soon as it is known to be over `maxBytes` (from Content-Length, or while counting). */
export function readIncoming(incoming: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        // Stop reading (not destroy: the 413 still has to go out on this socket).
        cleanup();
        incoming.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onAborted = (): void => onError(new Error('the client went away before sending the whole body'));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('aborted', onAborted);
  });
}
