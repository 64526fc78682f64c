/**
 * The channel the workers' dispatchers deliver to: it writes each batch to
 * the worker's journal (that is "reaching the channel"), then passes the
 * between-send-and-record crash point.
 */
import type { Channel, OutgoingMessage } from '../src/channels/channel.js';
import type { CrashPoints } from './crash-points.js';
import type { Journal } from './journal.js';

export function journalChannel(journal: Journal, crashes: CrashPoints, holder: string): Channel {
  return {
    name: 'journal',
    async send(message: OutgoingMessage) {
      // The chaos service has no operator channels: every batch is an inbox's.
      if (message.inboxId === null) throw new Error('the chaos journal takes inbox batches only');
      journal.write({
        k: 'sent',
        inbox: message.inboxId,
        holder,
        ids: message.messages.map((m) => m.id),
        bodies: message.messages.map((m) => m.body),
      });
      await crashes.pass('between-send-and-record', message.inboxId);
    },
  };
}
