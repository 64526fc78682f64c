/**
 * The email channel: one message per batch over SMTP (nodemailer). The
 * Message-ID is derived from the batch id, so a batch sent twice (at-least-
 * once delivery) carries the same id and mail clients and servers that
 * dedupe on it show it once. A send whose message data went out and whose
 * server reply never came is uncertain.
 */
import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Logger as TransportLogger } from 'nodemailer/lib/shared/index.js';
import { CHANNEL_DEFAULTS, delivered, rejected, uncertain, type Channel, type DeliveryResult, type OutgoingMessage } from './channel.js';

export interface EmailChannelOptions {
  /** Default `email`. */
  name?: string;
  host: string;
  port: number;
  secure?: boolean;
  user?: string | undefined;
  password?: string | undefined;
  from: string;
  /** Where mail goes for an inbox with no contacts.email; without it, such an inbox's messages are undeliverable here. */
  to?: string | undefined;
  subject?: string;
  timeoutMs?: number;
}

export function createEmailChannel(options: EmailChannelOptions): Channel {
  const timeoutMs = options.timeoutMs ?? CHANNEL_DEFAULTS.timeoutMs;
  // nodemailer is loaded with the first send: a service without an email channel never loads it.
  let nodemailer: Promise<typeof import('nodemailer')> | undefined;
  // A transport per send, as cheap as one shared (without a pool, nodemailer opens a connection per
  // message either way): its logger is how this send learns that its message data went out.
  const transporter = async (onDataSent: () => void): Promise<Transporter> =>
    (await (nodemailer ??= import('nodemailer'))).createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure ?? false,
      ...(options.user === undefined ? {} : { auth: { user: options.user, pass: options.password ?? '' } }),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      logger: dataSentWatch(onDataSent),
    });
  const domain = domainOf(options.from);
  return {
    name: options.name ?? 'email',
    contact: options.to === undefined ? 'required' : 'optional',
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<DeliveryResult> {
      signal.throwIfAborted();
      // nodemailer takes no AbortSignal: stop waiting on abort; its own socket
      // timeouts (timeoutMs) end the connection.
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('email send aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
      });
      let dataSent = false;
      const mailer = transporter(() => {
        dataSent = true;
      });
      const sending = mailer.then((m) =>
        m.sendMail({
          from: options.from,
          to: message.contact ?? options.to,
          subject: options.subject ?? 'Update from your agent',
          text: message.body,
          messageId: messageIdFor(message.id, domain),
          headers: { 'X-Vigil-Inbox': message.inboxId ?? '(operator)', 'X-Vigil-Batch': message.id },
        }),
      );
      sending.catch(() => undefined);
      try {
        await Promise.race([sending, aborted]);
        return delivered();
      } catch (error) {
        // An SMTP 5xx (no such mailbox, relaying denied) fails again on every try: rejected for good.
        const code = (error as { responseCode?: unknown }).responseCode;
        if (typeof code === 'number' && code >= 500 && code < 600) return rejected(`the mail server refused it: ${(error as Error).message}`);
        // The message went out and the server's verdict never came (a timeout, a dropped connection): it may have it.
        if (typeof code !== 'number' && dataSent) {
          return uncertain(`the mail server did not answer after the message was sent (${(error as Error).message}): it may have it`);
        }
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort!);
        void mailer.then((m) => m.close()).catch(() => undefined);
      }
    },
  };
}

/**
 * A logger for nodemailer that hears one thing: its SMTP connection logs
 * `tnx: 'message'` with the byte counts once the whole message has been
 * written to the socket, after DATA, before the server's reply.
 */
function dataSentWatch(onDataSent: () => void): TransportLogger {
  const ignore = (): void => undefined;
  return {
    trace: ignore,
    debug: ignore,
    info: (entry: unknown) => {
      if (typeof entry === 'object' && entry !== null && (entry as { tnx?: unknown }).tnx === 'message' && 'outByteCount' in entry) onDataSent();
    },
    warn: ignore,
    error: ignore,
    fatal: ignore,
  };
}

/**
 * `<vigil.<hash of the batch id>@<sender's domain>>`: the batch id itself may
 * hold characters a Message-ID may not (`:`, a leading or doubled `.`).
 */
export function messageIdFor(batchId: string, domain: string): string {
  return `<vigil.${createHash('sha256').update(batchId).digest('hex').slice(0, 32)}@${domain}>`;
}

function domainOf(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'vigil.invalid';
}
