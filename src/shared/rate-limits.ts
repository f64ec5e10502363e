// Requests per minute per API key (ASSAY_RATE_LIMIT_PER_MINUTE, docs/access.md#rate-limits):
// rate-limiter-flexible's fixed one-minute window per key. Its counters, and the login throttles'
// (auth/users/sessions.ts), live in this process on SQLite, and in the table "RateLimit" on PostgreSQL,
// where every instance counts against the same window (docs/operations.md#several-instances).
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import { TooManyRequestsError } from './errors.js';

/** Where limiters keep their counters: this process (null), or a PostgreSQL pool every instance shares. */
export type LimiterStore = pg.Pool | null;

export type WindowLimiter = RateLimiterMemory | RateLimiterStoreAbstract;

/** Only one limiter of a process sweeps the shared table of expired windows. */
let sweeping = false;

/** A limiter of `points` per `duration` seconds for keys under `keyPrefix`, in `store`. */
export function windowLimiter(store: LimiterStore, options: { keyPrefix: string; points: number; duration: number }): WindowLimiter {
  if (!store) return new RateLimiterMemory(options);
  const sweep = !sweeping;
  sweeping = true;
  // The table comes from the migrations (prisma/schema.prisma, model RateLimit), not from the library.
  return new RateLimiterPostgres({
    ...options,
    storeClient: store,
    storeType: 'pool',
    tableName: 'RateLimit',
    tableCreated: true,
    clearExpiredByTimeout: sweep,
  });
}

export class RateLimits {
  private readonly limiter: WindowLimiter | null;

  /** `perMinute` 0: no limit. */
  constructor(
    readonly perMinute: number,
    store: LimiterStore = null,
  ) {
    this.limiter = perMinute > 0 ? windowLimiter(store, { keyPrefix: 'requests', points: perMinute, duration: 60 }) : null;
  }

  /**
   * Counts `points` (one request, or the spans of an ingest) against the actor's minute (a key's,
   * or a signed-in user's; the service itself is not limited); throws
   * TooManyRequestsError, with the seconds until the window ends, beyond the limit. Any request
   * counts at least one (an empty export too); a batch larger than the whole limit counts as the
   * limit, so it passes in an empty window rather than never.
   */
  async consume(actor: { type: string; id: string | null }, points = 1): Promise<void> {
    if (!this.limiter || actor.id === null) return;
    try {
      await this.limiter.consume(`${actor.type}:${actor.id}`, Math.min(Math.max(points, 1), this.perMinute));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new TooManyRequestsError(
        `Rate limit of ${this.perMinute} per minute for this ${actor.type === 'user' ? 'user' : 'API key'} reached; retry in ${seconds} s`,
        seconds,
      );
    }
  }
}
