/**
 * A JSON POST for the HTTP channels: anything but a 2xx is a failure, with
 * the start of the response body in the message so an operator sees why.
 */
export interface PostOptions {
  url: string;
  /** Names the receiver in errors. Not the URL: a Slack webhook URL is itself the secret. */
  label: string;
  body: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  fetch?: typeof fetch;
}

const SNIPPET_CHARS = 200;

export async function postJson({ url, label, body, headers = {}, signal, timeoutMs, fetch: doFetch = fetch }: PostOptions): Promise<void> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.any([signal, deadline]),
      redirect: 'error',
    });
  } catch (error) {
    // The timeout's own message ("The operation was aborted due to timeout") names
    // neither the receiver nor the deadline; an operator reading the log needs both.
    if (deadline.aborted && !signal.aborted) throw new Error(`${label} did not answer within ${timeoutMs} ms`, { cause: error });
    throw error;
  }
  // Read the body either way: an unread body keeps the connection busy.
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const snippet = text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
    throw new Error(`${label} answered ${response.status}${snippet === '' ? '' : `: ${snippet}`}`);
  }
}
