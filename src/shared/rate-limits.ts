// Requests per minute per API key (ASSAY_RATE_LIMIT_PER_MINUTE, docs/access.md#rate-limits):
// rate-limiter-flexible's fixed one-minute window per key. Its store lives here, in Services, so
// another store (PostgreSQL's, shared by several processes) can replace the in-memory one later.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { TooManyRequestsError } from './errors.js';

export class RateLimits {
  private readonly limiter: RateLimiterAbstract | null;

  /** `perMinute` 0: no limit. */
  constructor(readonly perMinute: number) {
    this.limiter = perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: 60 }) : null;
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
