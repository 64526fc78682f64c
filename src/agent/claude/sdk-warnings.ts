/**
 * The Anthropic SDK's warnings, through the service's logger instead of the
 * console: a JSON log line an operator's collector keeps, rather than a
 * stray stderr line on every run (the SDK prints its model deprecation
 * notice with console.warn on each request).
 *
 * Two ways in. The client's own `logger` option (for what the client logs:
 * retries, bad settings) gets `sdkLogger`, which looks the sink up at call
 * time, so a client built before the service started still routes. The
 * deprecation notice is printed by `messages.create` itself, with
 * console.warn, synchronously before its first await: `withSdkWarnings`
 * points console.warn at the sink for exactly that synchronous call and
 * puts it back before anything else can run, so no other code's warnings
 * are caught. Without a sink (Vigil used as a library), the console as
 * before.
 */
export interface WarningSink {
  warn(details: object, message: string): void;
}

let sink: WarningSink | null = null;

/** Sends the SDK's warnings to `logger` until the returned function is called. */
export function routeClaudeSdkWarnings(logger: WarningSink): () => void {
  sink = logger;
  return () => {
    if (sink === logger) sink = null;
  };
}

/** Runs `call` (synchronous up to its first await) with console.warn going to the sink. */
export function withSdkWarnings<T>(call: () => T): T {
  const current = sink;
  if (current === null) return call();
  const original = console.warn;
  console.warn = (...args: unknown[]) => current.warn({ source: '@anthropic-ai/sdk' }, args.map(String).join(' '));
  try {
    return call();
  } finally {
    console.warn = original;
  }
}

type LogFn = (message: string, ...rest: unknown[]) => void;

function forward(level: 'error' | 'warn' | 'info' | 'debug'): LogFn {
  return (message, ...rest) => {
    if (sink === null) {
      console[level](message, ...rest);
      return;
    }
    // All at warn: the client logs only at its own logLevel (default 'warn'), so whatever reaches here is worth seeing.
    sink.warn({ source: '@anthropic-ai/sdk', sdkLevel: level, ...(rest.length === 0 ? {} : { details: rest.map(String) }) }, message);
  };
}

/** The `logger` option for an Anthropic client. */
export const sdkLogger = { error: forward('error'), warn: forward('warn'), info: forward('info'), debug: forward('debug') };
