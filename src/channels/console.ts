/**
 * The console channel: prints each batch to a stream (stdout by default).
 * What `npm start` uses, so a newcomer sees the agent's reply in the
 * terminal without configuring anything.
 */
import type { Channel, OutgoingMessage } from './channel.js';

export interface ConsoleChannelOptions {
  /** Default `console`. */
  name?: string;
  stream?: NodeJS.WritableStream;
}

export function createConsoleChannel({ name = 'console', stream = process.stdout }: ConsoleChannelOptions = {}): Channel {
  return {
    name,
    send(message: OutgoingMessage, signal: AbortSignal): Promise<void> {
      signal.throwIfAborted();
      const to = message.inboxId === null ? 'the operator' : message.contact === null ? message.inboxId : `${message.inboxId} <${message.contact}>`;
      const text = `--- to ${to} (${message.id}) ---\n${message.body}\n`;
      // The callback reports a failed write (a closed pipe): the batch stays held.
      return new Promise((resolve, reject) => {
        stream.write(text, (error) => (error ? reject(error) : resolve()));
      });
    },
  };
}
