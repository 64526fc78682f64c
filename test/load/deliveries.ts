/**
 * The hostile traffic for the load test, planned up front from a seed so a
 * failing run can be replayed: unique valid deliveries, redeliveries of the
 * same keys (some right behind their first copy, so both are in flight at
 * once, some anywhere in the run), and forgeries of several kinds. Every
 * delivery is signed with the `standardwebhooks` library (not our code) at
 * the moment it is sent, as a provider's retry would be.
 */
import { Webhook } from 'standardwebhooks';
import { rng, shuffle } from '../fixtures/child-processes.js';

export const SOURCE = 'hooks';
export const SECRET = 'whsec_' + Buffer.from('vigil-load-test-signing-secret!!').toString('base64');
const WRONG_SECRET = 'whsec_' + Buffer.from('an-attacker-guessed-this-secret!').toString('base64');
/** The source's replay window (the config's toleranceSeconds). */
export const TOLERANCE_SECONDS = 300;

/**
 * What a delivery is. The forged kinds must all be refused with 401:
 * - wrong_secret: signed, but with a key that is not the source's;
 * - tampered: a valid signature for another body;
 * - stale / future: authentic, but signed outside the replay window;
 * - hijack: a valid delivery's own key with a forged body, which must not
 *   replace or precede the real one.
 */
export type DeliveryKind = 'valid' | 'redelivery' | 'wrong_secret' | 'tampered' | 'stale' | 'future' | 'hijack';

export interface Delivery {
  /** Position in the run. */
  index: number;
  kind: DeliveryKind;
  inbox: string;
  /** The webhook-id: the dedupe key. */
  key: string;
  body: string;
}

export interface DeliveryPlan {
  deliveries: Delivery[];
  /** Key → inbox, for every valid key (each must be stored exactly once). */
  valid: Map<string, { inbox: string; body: string }>;
  /** Keys that only forgeries carry (none may be stored). */
  forgedOnly: Set<string>;
  counts: Record<DeliveryKind, number>;
}

const FORGED_KINDS = ['wrong_secret', 'tampered', 'stale', 'future', 'hijack'] as const;

export function planDeliveries(options: { total: number; duplicateShare: number; forgedShare: number; inboxes: number; seed: number }): DeliveryPlan {
  const random = rng(options.seed);
  const forged = Math.round(options.total * options.forgedShare);
  const redeliveries = Math.round(options.total * options.duplicateShare);
  const unique = options.total - forged - redeliveries;
  const inboxIds = Array.from({ length: options.inboxes }, (_, i) => `user-${String(i).padStart(2, '0')}`);
  const valid = new Map<string, { inbox: string; body: string }>();
  const forgedOnly = new Set<string>();
  // Each delivery gets a sort position; a burst redelivery sits right behind its first copy.
  const placed: { at: number; delivery: Omit<Delivery, 'index'> }[] = [];
  const validKeys: string[] = [];
  for (let n = 0; n < unique; n++) {
    const key = `msg_${options.seed}_${n}`;
    const inbox = inboxIds[Math.floor(random() * inboxIds.length)]!;
    const body = JSON.stringify({ type: 'ticket.updated', key, data: { n, note: `delivery ${n} for ${inbox}` } });
    valid.set(key, { inbox, body });
    validKeys.push(key);
    placed.push({ at: random(), delivery: { kind: 'valid', inbox, key, body } });
  }
  const firstAt = new Map(placed.map((p) => [p.delivery.key, p.at]));
  for (let n = 0; n < redeliveries; n++) {
    const key = validKeys[Math.floor(random() * validKeys.length)]!;
    const { inbox, body } = valid.get(key)!;
    const burst = random() < 0.3;
    placed.push({ at: burst ? firstAt.get(key)! + random() * 1e-6 : random(), delivery: { kind: 'redelivery', inbox, key, body } });
  }
  for (let n = 0; n < forged; n++) {
    const kind = FORGED_KINDS[n % FORGED_KINDS.length]!;
    let key = `forged_${options.seed}_${n}`;
    let inbox = inboxIds[Math.floor(random() * inboxIds.length)]!;
    if (kind === 'hijack') {
      key = validKeys[Math.floor(random() * validKeys.length)]!;
      inbox = valid.get(key)!.inbox;
    } else {
      forgedOnly.add(key);
    }
    const body = JSON.stringify({ type: 'ticket.updated', key, forged: true, data: { refund: 1_000_000 } });
    placed.push({ at: random(), delivery: { kind, inbox, key, body } });
  }
  // Shuffle first so equal positions do not keep insertion order, then sort by position.
  const ordered = shuffle(placed, random).sort((a, b) => a.at - b.at);
  const deliveries = ordered.map((p, index) => ({ index, ...p.delivery }));
  const counts = Object.fromEntries(['valid', 'redelivery', ...FORGED_KINDS].map((k) => [k, 0])) as Record<DeliveryKind, number>;
  for (const d of deliveries) counts[d.kind] += 1;
  return { deliveries, valid, forgedOnly, counts };
}

export function isForged(kind: DeliveryKind): boolean {
  return kind !== 'valid' && kind !== 'redelivery';
}

const signer = new Webhook(SECRET);
const forger = new Webhook(WRONG_SECRET);

/** The Standard Webhooks headers for `delivery` sent at `nowMs`, forged as its kind says. */
export function signDelivery(delivery: Delivery, nowMs: number): { body: string; headers: Record<string, string> } {
  let at = nowMs;
  if (delivery.kind === 'stale') at = nowMs - (TOLERANCE_SECONDS + 300) * 1000;
  if (delivery.kind === 'future') at = nowMs + (TOLERANCE_SECONDS + 300) * 1000;
  const key = delivery.kind === 'wrong_secret' || delivery.kind === 'hijack' ? forger : signer;
  const signedBody = delivery.kind === 'tampered' ? delivery.body.replace('"forged":true', '"forged":false') : delivery.body;
  const timestamp = new Date(at);
  return {
    body: delivery.body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': delivery.key,
      'webhook-timestamp': String(Math.floor(at / 1000)),
      'webhook-signature': key.sign(delivery.key, timestamp, signedBody),
    },
  };
}
