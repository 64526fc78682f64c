/**
 * `GET /healthz` asks the store a cheap question (nextWake: the ready index
 * on SQLite, one query on PostgreSQL) and says 503 when it does not answer
 * in time, so a load balancer stops sending to a process whose database is
 * gone; and 503 `degraded` while the store refuses writes it can still read
 * around (write-health.ts). `GET /metrics` is Prometheus text from the service's own registry.
 */
import { Hono } from 'hono';
import type { HttpContext } from '../http-context.js';

/** A health check that hangs is worse than one that fails: the prober times out with no reason. */
const HEALTH_TIMEOUT_MS = 5_000;

export function healthRoutes(ctx: HttpContext): Hono {
  const app = new Hono();

  app.get('/healthz', async (c) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the store did not answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([ctx.store.nextWake(), timeout]);
      const failing = ctx.writes.degraded();
      if (failing !== null) {
        // Reads answer, writes do not (a full disk): out of rotation, with the reason, until a write works again.
        return c.json(
          { ok: false, status: 'degraded', since: new Date(failing.since).toISOString(), error: { code: 'store_unavailable', message: `writes are failing: ${failing.reason}` } },
          503,
          { 'Retry-After': '1' },
        );
      }
      return c.json({ ok: true }, 200);
    } catch (error) {
      ctx.logger.warn({ err: error }, 'health check failed');
      return c.json({ ok: false, error: { code: 'store_unavailable', message: 'the store does not answer' } }, 503, { 'Retry-After': '1' });
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', async (c) => {
    const registry = ctx.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });

  return app;
}
