// Operations endpoints (docs/operations.md): /healthz (the process answers), /readyz (it can do
// its work: database reachable, no migration pending, write queue below its limit) and /metrics
// (Prometheus text). They are plumbing, not product operations, so they live here and read only
// shared parts; the write queue reaches them through the probe the server gives Metrics. Also the
// one request timing of the service: an onResponse hook observing the route pattern, so labels stay
// bounded (`/apps/:app_id`, never the raw URL).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../context.js';
import { ServiceUnavailableError } from '../errors.js';
import { UNMATCHED_ROUTE } from '../metrics.js';
import { appliedMigrationsSql, migrationNames } from '../migrate.js';

/** Why the service is not ready, or null when it is. */
async function notReadyReason(services: Services, expectedMigrations: readonly string[]): Promise<string | null> {
  let applied: Set<string>;
  try {
    await services.db.$queryRaw`SELECT 1`;
    const rows = await services.db.$queryRawUnsafe<{ migration_name: string }[]>(appliedMigrationsSql);
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    return `The database is unreachable: ${(error as Error).message}`;
  }
  const pending = expectedMigrations.filter((name) => !applied.has(name));
  if (pending.length > 0) return `${pending.length} database migration(s) not applied: ${pending.join(', ')}`;
  const queue = services.metrics.writeQueueState;
  if (queue && queue.waitingSpans >= queue.limits.maxQueuedSpans) {
    return `The span write queue is full (${queue.waitingSpans} spans waiting, limit ${queue.limits.maxQueuedSpans})`;
  }
  return null;
}

export function registerOperations(app: FastifyInstance, services: Services): void {
  const { metrics } = services;
  // The migrations this code was built with; read once, as they cannot change under a running process.
  const expectedMigrations = migrationNames();

  // A callback hook, not async: one observe per request and no promise on every answer.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });

  app.get('/healthz', { config: { access: 'public' } }, () => ({ status: 'ok' }));

  app.get('/readyz', { config: { access: 'public' } }, async () => {
    const reason = await notReadyReason(services, expectedMigrations);
    if (reason) throw new ServiceUnavailableError(reason);
    return { status: 'ready' };
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
