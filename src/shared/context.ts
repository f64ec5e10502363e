// What every operation receives: the database, the project the caller acts in, and the
// service's shared parts. Every query an operation makes is scoped by `projectId`, so API keys
// (docs/resources.md#projects-and-access) only change how it is chosen. The service's state lives
// here, not in modules (docs/architecture.md#state-lives-in-services); a domain adds its own part
// by augmenting `Services` where the part is typed (observability/queue.ts, pricing/operations.ts).
import type { Db } from './db.js';
import type { AssayEvents } from './events.js';
import type { Metrics } from './metrics.js';
import type { BulkSql } from './sql.js';
import type { SecretBox } from './secrets.js';
import type { WalSync } from './wal-sync.js';

export interface Services {
  db: Db;
  /** Bulk writes on Prisma's own connection, inside `db.$transaction` (sql.ts). */
  sql: BulkSql;
  events: AssayEvents;
  /** Awaited before a write is acknowledged: it is on disk then (wal-sync.ts). */
  walSync: WalSync;
  /** Seals secrets kept in the database (secrets.ts). */
  secrets: SecretBox;
  /** This instance's Prometheus registry and metrics (metrics.ts). */
  metrics: Metrics;
  /** Provider credentials from the environment (`OPENAI_API_KEY`, …), used when a request gives none. */
  providerEnv: Record<string, string>;
}

export interface RequestContext extends Services {
  projectId: string;
  /** Per-request memo for DataLoaders; see `perRequest`. */
  memo: Map<symbol, unknown>;
}

export function requestContext(services: Services, projectId: string): RequestContext {
  return { ...services, projectId, memo: new Map() };
}

/** One instance of `make()` per request (a DataLoader batches and caches within one request). */
export function perRequest<T>(ctx: RequestContext, key: symbol, make: () => T): T {
  if (!ctx.memo.has(key)) ctx.memo.set(key, make());
  return ctx.memo.get(key) as T;
}
