/**
 * Reads a request body up to a limit, counting while it reads, as
 * src/http/read-body.ts does for the service (its Node reader takes a Hono
 * context; the proxy runs on node:http). The whole body is held before
 * anything is sent upstream: streaming it through would have forwarded the
 * first megabyte of an oversized body before the limit was seen.
 */
import type { IncomingMessage } from 'node:http';
import { ProxyError } from './proxy-error.js';

export function readLimited(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = incoming.headers['content-length'];
  // A declared size over the limit is refused before a byte is read.
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
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
        reject(tooLarge(maxBytes));
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

function tooLarge(maxBytes: number): ProxyError {
  return new ProxyError(413, 'body_too_large', `the body is larger than the proxy's limit of ${maxBytes} bytes`);
}
