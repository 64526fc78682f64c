/**
 * R3/R5/R6's input: a run's outcome. An error, or messages; with an error
 * the messages are dropped (R5). A session, memory changes or approvals
 * come only with success: a failed run's state is not what the next
 * attempt should start from.
 */
import { VigilError } from '../../../errors.js';
import type { OutboxMessage, RunOutcome, Usage } from '../../contract.js';
import { NO_MEMORY_CHANGES, validateMemoryChanges, validateSession, type CheckedMemory, type CheckedSession } from './agent-state.js';
import { validateApprovalRequest, type CheckedApproval } from './approval.js';
import { checkStorable } from './text.js';
import { checkUsage, isEmptyUsage } from './usage.js';
import { validateIntent, validateSettlement, type CheckedIntent } from './effect.js';
import type { EffectSettlement } from '../../contract.js';

export interface CheckedMessage {
  body: string;
  urgent: boolean;
}

export interface CheckedOutcome {
  messages: CheckedMessage[];
  error: string | null;
  /** With an error: dead at once (R6) rather than retried. */
  dead: boolean;
  session: CheckedSession;
  memory: CheckedMemory;
  approvals: CheckedApproval[];
  /** The run's model usage to record, or null (none reported, or all zero). */
  usage: Usage | null;
  /** The ledger's settlements of the calls this run started (contract/effects.ts), with an error too. */
  effects: EffectSettlement[];
  /** Calls asked about, recorded `intended` with a successful finish. */
  intents: CheckedIntent[];
}

export function validateOutcome(outcome: unknown, maxBytes: number): CheckedOutcome {
  if (outcome === undefined) return { messages: [], error: null, dead: false, session: undefined, memory: NO_MEMORY_CHANGES, approvals: [], usage: null, effects: [], intents: [] };
  if (typeof outcome !== 'object' || outcome === null) {
    throw new VigilError('invalid_argument', 'outcome must be an object { messages?, error?, dead?, session?, memory? }');
  }
  const { messages = [], error, dead = false, session, memory, approvals = [] } = outcome as RunOutcome;
  if (error !== undefined && (typeof error !== 'string' || error.length === 0)) {
    throw new VigilError('invalid_argument', 'outcome.error must be a non-empty string');
  }
  if (error !== undefined) checkStorable('invalid_argument', 'outcome.error', error);
  if (typeof dead !== 'boolean') throw new VigilError('invalid_argument', 'outcome.dead must be a boolean');
  if (dead && error === undefined) throw new VigilError('invalid_argument', 'outcome.dead needs an outcome.error: the reason the events are dead');
  if (error !== undefined && (session !== undefined || memory !== undefined || (outcome as RunOutcome).approvals !== undefined)) {
    throw new VigilError('invalid_argument', 'outcome.session, outcome.memory and outcome.approvals are saved only with a successful outcome, not with an error');
  }
  if (!Array.isArray(approvals)) throw new VigilError('invalid_argument', 'outcome.approvals must be an array of { id, expiresInMs, action }');
  const { effects = [], intents = [] } = outcome as RunOutcome;
  if (error !== undefined && (outcome as RunOutcome).intents !== undefined) {
    throw new VigilError('invalid_argument', 'outcome.intents are recorded only with a successful outcome, not with an error');
  }
  if (!Array.isArray(intents)) throw new VigilError('invalid_argument', 'outcome.intents must be an array of { key, tool, input }');
  if (!Array.isArray(effects)) throw new VigilError('invalid_argument', 'outcome.effects must be an array of { key, state }');
  if (!Array.isArray(messages)) throw new VigilError('invalid_argument', 'outcome.messages must be an array');
  const checked = messages.map((message, i) => checkMessage(message, i, maxBytes));
  return {
    messages: error === undefined ? checked : [],
    error: error ?? null,
    dead,
    session: validateSession(session, maxBytes),
    memory: validateMemoryChanges(memory),
    approvals: approvals.map((request) => validateApprovalRequest(request, maxBytes)),
    usage: checkedUsage((outcome as RunOutcome).usage),
    effects: effects.map((settlement, i) => validateSettlement(settlement, i)),
    intents: intents.map((intent) => validateIntent(intent, maxBytes)),
  };
}

function checkMessage(message: OutboxMessage, index: number, maxBytes: number): CheckedMessage {
  const { body, urgent = false } = typeof message === 'string' ? { body: message } : (message ?? ({} as { body?: unknown; urgent?: unknown }));
  if (typeof body !== 'string' || body.length === 0) {
    throw new VigilError('invalid_argument', `outcome.messages[${index}] needs a non-empty string body`);
  }
  if (Buffer.byteLength(body, 'utf8') > maxBytes) {
    throw new VigilError('invalid_argument', `outcome.messages[${index}] is larger than ${maxBytes} bytes`);
  }
  if (typeof urgent !== 'boolean') throw new VigilError('invalid_argument', `outcome.messages[${index}].urgent must be a boolean`);
  checkStorable('invalid_argument', `outcome.messages[${index}]`, body);
  return { body, urgent };
}

function checkedUsage(usage: unknown): Usage | null {
  if (usage === undefined) return null;
  const checked = checkUsage(usage, 'outcome.usage');
  return isEmptyUsage(checked) ? null : checked;
}
