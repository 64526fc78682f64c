/**
 * One run's part of the ledger of side effects (contract/effects.ts): the
 * toolbox's ledger, fenced on the run's lease; what the run settles with its
 * finish; and the context's verbs for calls a crash left unknown
 * (ctx.unknownEffects, ctx.settleEffect, ctx.askAboutEffect), with the
 * answers to "did this happen?" settled before the agent runs.
 */
import type { AgentContext } from '../agent/agent.js';
import { describeAction } from '../agent/approval-summary.js';
import type { EffectLedger } from '../agent/tools.js';
import { isVigilError, VigilError } from '../errors.js';
import type { ApprovalRequest, ClaimedEvent, EffectIntent, EffectSettlement, Inbox } from '../store/contract.js';

/** An approval asking whether an unknown call happened is named for its key. */
const EFFECT_APPROVAL_PREFIX = 'effect-';
/** How long a person has to say, unless the agent says otherwise: a day. */
const DEFAULT_ASK_MS = 24 * 60 * 60 * 1000;

/** What such an approval carries; it comes back in the answer event's payload. */
export interface EffectQuestion {
  type: 'effect';
  key: string;
  tool: string;
  input: Record<string, unknown>;
  summary: string;
}

export interface RunEffectsDeps {
  inbox: Inbox;
  /** The run's lease: the ledger's start is fenced on it. Absent: tools run unrecorded. */
  lease: { holder: string; gen: number } | undefined;
  events: readonly ClaimedEvent[];
  /** Throws once the run's signal has fired. */
  live(): void;
  requestApproval(request: ApprovalRequest): Promise<{ link: string | null }>;
}

export interface RunEffects {
  ledger: EffectLedger | undefined;
  /** The calls this run started, as they ended: settled with its finish. */
  settlements(): EffectSettlement[];
  /** The calls this run asked about: `intended` with its (successful) finish. */
  intents(): EffectIntent[];
  /** Settles the unknown calls whose "did this happen?" was answered in this run's events: yes confirmed, no failed. */
  settleAnswers(): Promise<void>;
  verbs: Pick<AgentContext, 'unknownEffects' | 'settleEffect' | 'askAboutEffect'>;
}

export function createRunEffects({ inbox, lease, events, live, requestApproval }: RunEffectsDeps): RunEffects {
  const ended = new Map<string, 'confirmed' | 'failed'>();
  const intended = new Map<string, EffectIntent>();
  const ledger: EffectLedger | undefined =
    lease === undefined
      ? undefined
      : {
          async start(intent) {
            live();
            const start = await inbox.startEffect(lease.holder, lease.gen, intent);
            // R3: a run that lost its lease must not start the effect; its finish will be refused too.
            if (start === null) throw new Error(`the run lost its lease on ${inbox.id}: the side effect ${intent.tool} was not started`);
            return start;
          },
          ended: (key, state) => void ended.set(key, state),
          intend: (intent) => void intended.set(intent.key, intent),
        };

  const unknownEffects: AgentContext['unknownEffects'] = async () =>
    (await inbox.effects({ which: 'unknown' })).map(({ tool, input, key, startedAt, intendedAt }) => ({ tool, input, key, at: startedAt ?? intendedAt }));

  return {
    ledger,
    settlements: () => [...ended].map(([key, state]) => ({ key, state })),
    intents: () => [...intended.values()],
    async settleAnswers() {
      for (const event of events) {
        const answered = effectAnswer(event);
        if (answered === null) continue;
        try {
          await inbox.settleEffect(answered.key, answered.state);
        } catch (error) {
          // Settled meanwhile (by the agent, an operator): the first word stands.
          if (!isVigilError(error, 'not_unknown')) throw error;
        }
      }
    },
    verbs: {
      unknownEffects,
      async settleEffect(key, state) {
        live();
        await inbox.settleEffect(key, state);
      },
      async askAboutEffect(key, options = {}) {
        live();
        const effect = (await unknownEffects()).find((entry) => entry.key === key);
        if (effect === undefined) throw new VigilError('not_unknown', `the side effect ${JSON.stringify(key)} is not unknown: there is nothing to ask`);
        const summary = clip(`Did this happen? ${effect.tool} ${JSON.stringify(effect.input)}`);
        const action: EffectQuestion = { type: 'effect', key, tool: effect.tool, input: effect.input, summary };
        const id = EFFECT_APPROVAL_PREFIX + key;
        const { link } = await requestApproval({ id, expiresInMs: options.expiresInMs ?? DEFAULT_ASK_MS, action });
        const body = link === null ? `${describeAction(action)} (approval ${id}: yes if it happened, no if it did not)` : `${describeAction(action)}\n${link}`;
        return { approvalId: id, link, message: { body, urgent: true } };
      },
    },
  };
}

/** The settlement an answered "did this happen?" says, or null for any other event (an expiry settles nothing). */
function effectAnswer(event: ClaimedEvent): { key: string; state: 'confirmed' | 'failed' } | null {
  if (event.source !== 'approval' || !event.sourceId.startsWith(EFFECT_APPROVAL_PREFIX)) return null;
  const payload = event.payload as { answer?: unknown; action?: Partial<EffectQuestion> } | null;
  if (payload?.action?.type !== 'effect' || typeof payload.action.key !== 'string') return null;
  if (payload.answer === 'yes') return { key: payload.action.key, state: 'confirmed' };
  if (payload.answer === 'no') return { key: payload.action.key, state: 'failed' };
  return null;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
