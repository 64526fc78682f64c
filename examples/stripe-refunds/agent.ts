/**
 * Refunds that a person approves. When Stripe Radar flags a payment for
 * review (the `review.opened` webhook), the agent looks the charge up and
 * asks you, with a one-tap link, whether to refund it. Yes refunds it, once;
 * no, or no answer within a day, leaves it alone. Stripe's `charge.refunded`
 * webhook then confirms.
 *
 * It holds no Stripe key: calls go through `ctx.fetch('stripe/…')`, the
 * credential proxy (`vigil proxy --config proxy.json`), which adds the key
 * and allows only reading charges and creating refunds.
 *
 * Exactly once: the refund carries an Idempotency-Key made from the
 * approval's answer (`ctx.idempotencyKey`), the same on every retry. If the
 * refund went through but its answer was lost, the retried run sends the
 * same key and Stripe answers with the refund it already made.
 */
import { defineAgent, TerminalError, type AgentContext, type ClaimedEvent, type OutboxMessage } from 'vigil-agents';

const DAY = 86_400_000;

/** What the approval remembers: the answer event carries it back. `summary` is what the approval page asks. */
interface RefundAction {
  type: 'stripe-refund';
  charge: string;
  amount: number;
  currency: string;
  summary: string;
}

export default defineAgent({
  name: 'stripe-refunds',
  async run(ctx) {
    const messages: OutboxMessage[] = [];
    for (const event of ctx.events) {
      const message = event.source === 'stripe' ? await stripeEvent(ctx, event) : event.source === 'approval' ? await answered(ctx, event) : null;
      if (message !== null) messages.push(message);
    }
    return messages.length === 0 ? { nothing: true } : { messages };
  },
});

/** A Stripe webhook: its payload is the Stripe event, `{ id, type, data: { object } }`. */
async function stripeEvent(ctx: AgentContext, event: ClaimedEvent): Promise<OutboxMessage | null> {
  const { type, data } = event.payload as { type?: string; data?: { object?: Record<string, unknown> } };
  const object = data?.object ?? {};
  if (type === 'review.opened' && typeof object.charge === 'string') {
    const charge = (await stripe(ctx, 'GET', `v1/charges/${encodeURIComponent(object.charge)}`)) as { id: string; amount: number; currency: string };
    const money = formatMoney(charge.amount, charge.currency);
    const reason = typeof object.reason === 'string' ? object.reason : 'manual review';
    const action: RefundAction = { type: 'stripe-refund', charge: charge.id, amount: charge.amount, currency: charge.currency, summary: `Refund ${money} of ${charge.id}` };
    // Asking again for the same id changes nothing: a redelivered review asks once.
    const { link } = await ctx.requestApproval({ id: `refund-${charge.id}`, expiresInMs: DAY, action });
    const how = link ?? `vigil approve ${ctx.inboxId} refund-${charge.id} yes`;
    // Urgent: it skips the outbox's pacing, a person is waiting to decide.
    return { body: `URGENT: Radar flagged ${money} (${charge.id}) for review: ${reason}. Refund it? ${how}`, urgent: true };
  }
  if (type === 'charge.refunded' && typeof object.id === 'string' && typeof object.amount_refunded === 'number' && typeof object.currency === 'string') {
    return `Stripe confirms: ${object.id} refunded (${formatMoney(object.amount_refunded, object.currency)}).`;
  }
  return null; // every other Stripe event: nothing to say
}

/** The answer to a refund approval: `{ approval, answer: 'yes' | 'no' | 'expired', action }`. */
async function answered(ctx: AgentContext, event: ClaimedEvent): Promise<string | null> {
  const { answer, action } = event.payload as { answer?: string; action?: RefundAction };
  if (action?.type !== 'stripe-refund') return null;
  const money = formatMoney(action.amount, action.currency);
  if (answer === 'no') return `Left ${action.charge} alone: you said no.`;
  if (answer !== 'yes') return `Left ${action.charge} alone: nobody answered within a day.`;

  // A run whose lease is gone must not touch money; its finish would be refused anyway.
  ctx.signal.throwIfAborted();
  const form = new URLSearchParams({ charge: action.charge, reason: 'fraudulent', 'metadata[approval]': event.sourceId });
  try {
    const refund = (await stripe(ctx, 'POST', 'v1/refunds', form, ctx.idempotencyKey(`refund:${event.sourceId}`, event))) as { id: string };
    return `Refunded ${money} of ${action.charge} (${refund.id}).`;
  } catch (error) {
    // Stripe said no for good (already refunded, charge disputed): say so rather than let the event die quietly.
    if (error instanceof TerminalError) return `Could not refund ${action.charge}: ${error.message}`;
    throw error;
  }
}

/** One Stripe API call through the credential proxy; an Error to retry (429, 5xx, network), a TerminalError for Stripe's own refusals. */
async function stripe(ctx: AgentContext, method: 'GET' | 'POST', path: string, form?: URLSearchParams, idempotencyKey?: string): Promise<unknown> {
  const response = await ctx.fetch(`stripe/${path}`, {
    method,
    headers: {
      ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    ...(form === undefined ? {} : { body: form.toString() }),
    signal: ctx.signal,
  });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (response.ok) return body;
  const what = `${method} ${path}: ${response.status} ${body.error?.message ?? ''}`.trim();
  if (response.status === 429 || response.status >= 500) throw new Error(what);
  throw new TerminalError(what);
}

/** Stripe amounts are in the currency's smallest unit (cents for USD and EUR). */
function formatMoney(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
}
