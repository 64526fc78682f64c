/**
 * A local stand-in for the Messages API, enough of its wire format for the
 * real SDK pointed at it via `baseURL`: `POST /v1/messages` with a JSON body,
 * answered from a script (a queue of responses, or a function of the
 * request), every request recorded (headers and parsed body) for the test
 * to assert on. Errors carry the API's error body
 * (`{"type":"error","error":{"type","message"}}`) and a `request-id`
 * header, as the SDK expects.
 *
 * Retries stay fast: the SDK waits `retry-after-ms` (then `retry-after`)
 * when the answer names a positive delay, else 0.5s, 1s, 2s... with jitter
 * (client.ts, retryRequest / calculateDefaultRetryTimeoutMillis). The error
 * helpers for retryable statuses send `retry-after-ms: 1`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The raw body text, for "this string never appears" assertions. */
  raw: string;
}

export interface ScriptedResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer: the request hangs until the client gives up or the server closes. */
  hang?: boolean;
}

export type Script = ScriptedResponse | ((request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>);

export interface FakeMessagesServer {
  /** The base URL to hand the SDK, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Every request received, in order (including ones the script did not cover). */
  readonly requests: RecordedRequest[];
  /** Appends responses to the queue; each request takes the next one. */
  enqueue(...responses: Script[]): void;
  /** Answers every request from then on (after the queue is empty). */
  setFallback(script: Script | undefined): void;
  close(): Promise<void>;
}

let messageCounter = 0;

/** A successful Messages API reply. */
export function messageReply(
  content: unknown[],
  stopReason: string | null = 'end_turn',
  extra: Record<string, unknown> = {},
): ScriptedResponse {
  messageCounter += 1;
  return {
    status: 200,
    body: {
      id: `msg_fake_${messageCounter}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-fake',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 12, output_tokens: 7 },
      ...extra,
    },
  };
}

/** An API error in the API's own shape. Retryable statuses get `retry-after-ms: 1`, so the SDK retries at once. */
export function apiError(status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedResponse {
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  return {
    status,
    body: { type: 'error', error: { type, message } },
    headers: { ...(retryable ? { 'retry-after-ms': '1' } : {}), ...headers },
  };
}

export const overloaded = (): ScriptedResponse => apiError(529, 'overloaded_error', 'Overloaded');

export async function startFakeMessagesServer(): Promise<FakeMessagesServer> {
  const requests: RecordedRequest[] = [];
  const queue: Script[] = [];
  let fallback: Script | undefined;
  let requestIds = 0;

  const send = (res: ServerResponse, response: ScriptedResponse): void => {
    requestIds += 1;
    const body = response.body === undefined ? '' : typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    res.writeHead(response.status, {
      'content-type': 'application/json',
      'request-id': `req_fake_${requestIds}`,
      ...response.headers,
    });
    res.end(body);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, raw };
    const index = requests.length;
    requests.push(recorded);

    // What the real API checks before anything else.
    if (req.method !== 'POST' || path !== '/v1/messages') {
      return send(res, apiError(404, 'not_found_error', `fake server: no route ${req.method} ${path}`));
    }
    if (req.headers['x-api-key'] === undefined && req.headers.authorization === undefined) {
      return send(res, apiError(401, 'authentication_error', 'x-api-key header is required'));
    }
    if (req.headers['anthropic-version'] === undefined) {
      return send(res, apiError(400, 'invalid_request_error', 'anthropic-version header is required'));
    }
    if (typeof body !== 'object' || body === null) {
      return send(res, apiError(400, 'invalid_request_error', 'the body is not a JSON object'));
    }

    const script = queue.shift() ?? fallback;
    if (script === undefined) {
      // Not retryable, so a test that scripted too little fails at once, not after backoff.
      return send(res, apiError(500, 'api_error', `fake server: no scripted response for request ${index + 1}`, { 'x-should-retry': 'false' }));
    }
    const response = typeof script === 'function' ? await script(recorded, index) : script;
    if (response.hang === true) return; // closed by close() or by the client
    send(res, response);
  };

  const server: Server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, apiError(500, 'api_error', `fake server: ${String(error)}`, { 'x-should-retry': 'false' }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    setFallback: (script) => {
      fallback = script;
    },
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // hanging requests too
      });
      return closed;
    },
  };
}
