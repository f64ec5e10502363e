// What every operation receives: the database and the project the caller acts in. Every query an
// operation makes is scoped by `projectId`, so API keys (SPEC §8) only change how it is chosen.
import type { Db } from './db.js';

export interface RequestContext {
  db: Db;
  projectId: string;
  /** Per-request memo for DataLoaders; see `perRequest`. */
  memo: Map<symbol, unknown>;
}

export function requestContext(db: Db, projectId: string): RequestContext {
  return { db, projectId, memo: new Map() };
}

/** One instance of `make()` per request (a DataLoader batches and caches within one request). */
export function perRequest<T>(ctx: RequestContext, key: symbol, make: () => T): T {
  if (!ctx.memo.has(key)) ctx.memo.set(key, make());
  return ctx.memo.get(key) as T;
}
