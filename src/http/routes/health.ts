/**
 * `GET /healthz`, which anyone may ask: `ok`, or `degraded` (503) with a
 * reason class and never an inbox id or a path (the log and the dashboard
 * get those). `store_unreachable`: the store did not answer a cheap read
 * (nextWake: the ready index on SQLite, one query on PostgreSQL) in time,
 * so a load balancer stops sending to a process whose database is gone.
 * `store_unwritable`: it reads but takes no writes (write-health.ts); one
 * inbox's failing writes mark that inbox, never the instance.
 * `GET /metrics` is Prometheus text from the service's own registry.
 */
import { Hono } from 'hono';
import type { HttpContext } from '../http-context.js';
import type { Degraded } from '../write-health.js';

/** A health check that hangs is worse than one that fails: the prober times out with no reason. */
const HEALTH_TIMEOUT_MS = 5_000;

const SAYS: Record<Degraded['reason'], string> = {
  store_unreachable: 'the store does not answer',
  store_unwritable: 'the store takes no writes',
};

export function healthRoutes(ctx: HttpContext): Hono {
  const app = new Hono();

  app.get('/healthz', async (c) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the store did not answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
    });
    let degraded: Degraded | null;
    try {
      await Promise.race([ctx.store.nextWake(), timeout]);
      // The probe write (when one is due) has the same deadline: a write that hangs is no write.
      degraded = await Promise.race([ctx.writes.degraded(), timeout]).catch((error: unknown) => {
        ctx.logger.warn({ err: error }, 'health check: the probe write did not finish');
        return { reason: 'store_unwritable' as const, since: ctx.now() };
      });
    } catch (error) {
      ctx.logger.warn({ err: error }, 'health check failed');
      degraded = ctx.writes.unreachable(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
    if (degraded === null) return c.json({ ok: true, status: 'ok' }, 200);
    return c.json(
      { ok: false, status: 'degraded', reason: degraded.reason, since: new Date(degraded.since).toISOString(), error: { code: 'store_unavailable', message: SAYS[degraded.reason] } },
      503,
      { 'Retry-After': '1' },
    );
  });

  app.get('/metrics', async (c) => {
    const registry = ctx.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });

  return app;
}
