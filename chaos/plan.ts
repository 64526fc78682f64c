/**
 * The events a run feeds, decided up front from the seed: which inbox each
 * goes to, what kind it is (chaos-agent.ts), and for asks whether the
 * harness answers yes, no, or lets the approval expire.
 */
import type { ChaosPayload, EventKind } from './chaos-agent.js';
import { MAX_EVENTS_PER_INBOX, type ChaosConfig } from './config.js';
import { shuffle } from './random.js';

export type ApprovalPlan = 'yes' | 'no' | 'expire';

export interface PlannedEvent {
  inbox: string;
  sourceId: string;
  kind: EventKind;
  payload: ChaosPayload;
  approval?: ApprovalPlan;
}

export const inboxName = (n: number): string => `chaos-${n}`;

/** An approval left to expire gets a short window; an answered one a long one, so the answer wins. */
const EXPIRE_MS = 1_500;
const ANSWER_WINDOW_MS = 600_000;

export function planEvents(config: ChaosConfig, random: () => number): PlannedEvent[] {
  const special: EventKind[] = [
    ...Array<EventKind>(config.poison).fill('poison'),
    ...Array<EventKind>(config.throwing).fill('throwing'),
    ...Array<EventKind>(config.flaky).fill('flaky'),
    ...Array<EventKind>(config.slow).fill('slow'),
    ...Array<EventKind>(config.asks).fill('ask'),
  ];
  if (special.length > config.events) throw new Error(`the plan has ${special.length} special events but only ${config.events} events`);
  if (config.events / config.inboxes > MAX_EVENTS_PER_INBOX) throw new Error(`more than ${MAX_EVENTS_PER_INBOX} events per inbox: use more inboxes`);
  const kinds = shuffle([...special, ...Array<EventKind>(config.events - special.length).fill('healthy')], random);
  return kinds.map((kind, i) => {
    const payload: ChaosPayload = { kind };
    let approval: ApprovalPlan | undefined;
    if (kind === 'slow') payload.stallMs = Math.round(config.leaseTtlMs * 1.5);
    if (kind === 'ask') {
      approval = (['yes', 'no', 'expire'] as const)[Math.floor(random() * 3)]!;
      payload.expiresInMs = approval === 'expire' ? EXPIRE_MS : ANSWER_WINDOW_MS;
    }
    return { inbox: inboxName(Math.floor(random() * config.inboxes)), sourceId: `e${i}`, kind, payload, ...(approval === undefined ? {} : { approval }) };
  });
}
