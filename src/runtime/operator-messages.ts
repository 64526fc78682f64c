/**
 * Messages for the operator of the service, not for a user: they go to the
 * channels the config gives `"audience": "operator"`, and only to those; a
 * user's messages never go there (the dispatcher has the users' channels
 * only). Each is sent once to each channel, and the outcome is an event
 * (`operator:sent`) the log hears. A message has no inbox, so no contact:
 * an operator's channel reaches someone on its own (the config checks it).
 */
import { randomUUID } from 'node:crypto';
import { delivered, type Channel, type DeliveryResult } from '../channels/channel.js';
import type { RuntimeEvents } from '../events.js';
import { describeError } from './call-agent.js';

export interface OperatorMessage {
  body: string;
  /** Stable for the same notice, so a receiver can drop a repeat (default: a new id). */
  id?: string;
}

export class OperatorMessages {
  constructor(
    private readonly channels: readonly Channel[],
    private readonly events: RuntimeEvents,
    private readonly sendTimeoutMs = 10_000,
  ) {}

  /** Whether any channel would hear it. */
  get configured(): boolean {
    return this.channels.length > 0;
  }

  /** Sends to every operator channel at once; what each said. A channel that throws is a retry it did not get. */
  async send({ body, id = `operator:${randomUUID()}` }: OperatorMessage): Promise<Array<{ channel: string; result: DeliveryResult }>> {
    return Promise.all(
      this.channels.map(async (channel) => {
        let result: DeliveryResult;
        try {
          result = (await channel.send({ inboxId: null, id, body, messages: [], contact: null }, AbortSignal.timeout(this.sendTimeoutMs))) ?? delivered();
        } catch (error) {
          result = { status: 'retry', reason: describeError(error) };
        }
        this.events.emit('operator:sent', { id, channel: channel.name, status: result.status, ...(result.status === 'delivered' ? {} : { error: result.reason }) });
        return { channel: channel.name, result };
      }),
    );
  }
}
