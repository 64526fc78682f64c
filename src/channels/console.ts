/**
 * The console channel: prints each batch to a stream (stdout by default).
 * What `npm start` uses, so a newcomer sees the agent's reply in the
 * terminal without configuring anything.
 *
 * A body is the agent's text, often an echo of what a user sent, and
 * stdout is also the service's JSON log stream. So the body is never
 * written raw: where the stream is not a terminal (a log collector reads
 * it) each batch is one JSON record in the log's own shape, the body a
 * string field, so no body can forge a log line (`{"level":50,…}` on a line
 * of its own) or carry an escape code (JSON escapes every control
 * character). On a terminal, where a person reads it as text, the body is
 * printed as text with its control characters shown as escapes (newlines
 * and tabs kept), so it cannot restyle or rewrite the terminal.
 * Escaping alone in both places was the other choice: a log collector
 * would still get lines that are not JSON, one per line of every reply.
 * `vigil serve` picks the format its logs have (`vigil dev`'s pretty logs:
 * text).
 */
import type { Channel, OutgoingMessage } from './channel.js';

export interface ConsoleChannelOptions {
  /** Default `console`. */
  name?: string;
  stream?: NodeJS.WritableStream;
  /** Default: `text` on a terminal, `json` otherwise (where the JSON log lines go). */
  format?: 'text' | 'json';
}

/** pino's "info", so a collector files the record beside the log's own lines. */
const INFO = 30;

export function createConsoleChannel({ name = 'console', stream = process.stdout, format }: ConsoleChannelOptions = {}): Channel {
  const json = (format ?? ((stream as { isTTY?: boolean }).isTTY === true ? 'text' : 'json')) === 'json';
  return {
    name,
    send(message: OutgoingMessage, signal: AbortSignal): Promise<void> {
      signal.throwIfAborted();
      const text = json ? asRecord(name, message) : asText(message);
      // The callback reports a failed write (a closed pipe): the batch stays held.
      return new Promise((resolve, reject) => {
        stream.write(text, (error) => (error ? reject(error) : resolve()));
      });
    },
  };
}

function asRecord(channel: string, message: OutgoingMessage): string {
  const record = { level: INFO, time: Date.now(), channel, inboxId: message.inboxId, contact: message.contact, batch: message.id, body: message.body, msg: 'message printed by the console channel' };
  return `${JSON.stringify(record)}\n`;
}

function asText(message: OutgoingMessage): string {
  const to = message.inboxId === null ? 'the operator' : message.contact === null ? message.inboxId : `${message.inboxId} <${message.contact}>`;
  return `--- to ${escapeControls(to)} (${escapeControls(message.id)}) ---\n${escapeControls(message.body, true)}\n`;
}

// C0 and C1 controls and DEL: ESC (terminal escape codes), CR (overwrites the line), backspace and the rest.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function escapeControls(text: string, keepLines = false): string {
  return text.replace(CONTROL, (c) => (keepLines && (c === '\n' || c === '\t') ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
