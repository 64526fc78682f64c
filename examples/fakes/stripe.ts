/**
 * A local stand-in for the parts of Stripe's API the refunds example uses,
 * answering as Stripe does: `GET /v1/charges/:id`, `POST /v1/refunds`
 * (form-encoded) that honours `Idempotency-Key` (a repeated key gets the
 * first answer again and refunds nothing), errors as `{ error: { type,
 * message } }`, 401 without the expected key. `loseNextRefundAnswer()`
 * makes the next refund and then answers 502, as a connection that drops
 * after Stripe did the work would look to the caller.
 */
import { listenFake, sendJson, type FakeOptions } from './listen.js';

export interface StripeCharge {
  id: string;
  amount: number;
  currency: string;
}

export interface StripeRefund {
  id: string;
  charge: string;
  amount: number;
  idempotencyKey: string | undefined;
  metadata: Record<string, string>;
}

export interface FakeStripe {
  readonly url: string;
  readonly refunds: StripeRefund[];
  /** Every request: method, path, Authorization and Idempotency-Key. */
  readonly requests: { method: string; path: string; authorization: string | undefined; idempotencyKey: string | undefined }[];
  loseNextRefundAnswer(): void;
  close(): Promise<void>;
}

/** What `npm run fakes -- stripe` serves, for its banner. */
export const STRIPE_ROUTES = ['GET /v1/charges/{id}', 'POST /v1/refunds'];

export async function startFakeStripe(apiKey: string, charges: StripeCharge[], options: FakeOptions = {}): Promise<FakeStripe> {
  const refunds: StripeRefund[] = [];
  const requests: FakeStripe['requests'] = [];
  const byKey = new Map<string, { status: number; body: unknown }>();
  let loseNext = false;

  const server = await listenFake(options, ({ method, path, headers, raw }, res, note) => {
    const key = headers['idempotency-key'] as string | undefined;
    requests.push({ method, path, authorization: headers.authorization, idempotencyKey: key });
    const send = (status: number, body: unknown): void => sendJson(res, status, body);
    const error = (status: number, type: string, message: string): void => send(status, { error: { type, message } });
    if (headers.authorization !== `Bearer ${apiKey}`) return error(401, 'invalid_request_error', 'Invalid API Key provided.');

    const charge = /^\/v1\/charges\/([\w-]+)$/.exec(path);
    if (method === 'GET' && charge !== null) {
      const found = charges.find((c) => c.id === charge[1]);
      return found === undefined ? error(404, 'invalid_request_error', `No such charge: '${charge[1]}'`) : send(200, { object: 'charge', ...found });
    }
    if (method === 'POST' && path === '/v1/refunds') {
      if (key !== undefined && byKey.has(key)) {
        const first = byKey.get(key)!;
        note('a repeated Idempotency-Key: the first answer again, nothing refunded');
        return send(first.status, first.body);
      }
      const form = new URLSearchParams(raw);
      const target = charges.find((c) => c.id === form.get('charge'));
      let answer: { status: number; body: unknown };
      if (target === undefined) answer = { status: 400, body: { error: { type: 'invalid_request_error', message: `No such charge: '${form.get('charge')}'` } } };
      else if (refunds.some((r) => r.charge === target.id)) answer = { status: 400, body: { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: `Charge ${target.id} has already been refunded.` } } };
      else {
        const metadata = Object.fromEntries([...form].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value]));
        const refund: StripeRefund = { id: `re_${refunds.length + 1}`, charge: target.id, amount: target.amount, idempotencyKey: key, metadata };
        refunds.push(refund);
        note(`refunded ${target.amount} ${target.currency} of ${target.id} (${refund.id})`);
        answer = { status: 200, body: { object: 'refund', status: 'succeeded', ...refund } };
      }
      if (key !== undefined) byKey.set(key, answer);
      if (loseNext) {
        loseNext = false;
        return error(502, 'api_error', 'Bad gateway');
      }
      return send(answer.status, answer.body);
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  });
  return {
    url: server.url,
    refunds,
    requests,
    loseNextRefundAnswer: () => {
      loseNext = true;
    },
    close: server.close,
  };
}
