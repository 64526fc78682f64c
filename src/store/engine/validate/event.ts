/** R1's input: non-empty keys up to 256 characters, a JSON payload within the size limit. */
import { VigilError } from '../../../errors.js';
import type { NewEvent } from '../../contract.js';
import { toJson } from './json.js';
import { checkKey, objectInput } from './text.js';

/** A validated event, its payload already serialised once. */
export interface CheckedEvent {
  source: string;
  sourceId: string;
  payloadJson: string;
}

export function validateEvent(event: unknown, maxPayloadBytes: number): CheckedEvent {
  const { source, sourceId, payload } = objectInput<NewEvent>(event, 'invalid_event', 'an event must be an object { source, sourceId, payload? }');
  checkKey('invalid_event', 'source', source);
  checkKey('invalid_event', 'sourceId', sourceId);
  const payloadJson = toJson('invalid_event', 'payload', payload === undefined ? null : payload, maxPayloadBytes);
  return { source, sourceId, payloadJson };
}

export function validateEvents(events: unknown, maxPayloadBytes: number): CheckedEvent[] {
  if (!Array.isArray(events)) {
    throw new VigilError('invalid_event', 'ingestMany takes an array of events');
  }
  return events.map((event, index) => {
    try {
      return validateEvent(event, maxPayloadBytes);
    } catch (error) {
      if (error instanceof VigilError) {
        throw new VigilError(error.code, `event ${index}: ${error.message}`);
      }
      throw error;
    }
  });
}
