// Deleting traces (docs/observability.md#deleting): one trace by its id, and every span one
// `user_id` sent (a privacy request). Spans still waiting in the write queue are not reached: a
// deletion covers what was stored when it ran.
import type { RequestContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { deleteSpans, type DeletedSpans } from './ingest.js';

/** Deletes a trace, every span and its summary; 404 when the project has no such trace. */
export async function deleteTrace(ctx: RequestContext, traceId: string): Promise<DeletedSpans> {
  const deleted = await deleteSpans(ctx, [traceId], 'true', []);
  if (deleted.spans === 0 && deleted.traces === 0) throw new NotFoundError('Trace', traceId);
  return deleted;
}

/**
 * Deletes every span whose `user_id` is `userId`: the traces left without spans go, the others
 * keep their other spans and are summed again. Answers what went; 404 when the project holds no
 * span of that user (none, or none left), as for any id it does not know.
 */
export async function deleteUserSpans(ctx: RequestContext, userId: string): Promise<DeletedSpans> {
  const rows = await ctx.sql.query<{ traceId: string }>(ctx.db, 'SELECT DISTINCT "traceId" AS "traceId" FROM "Span" WHERE "projectId" = ? AND "userId" = ?', [
    ctx.projectId,
    userId,
  ]);
  const deleted = await deleteSpans(
    ctx,
    rows.map((row) => row.traceId),
    '"userId" = ?',
    [userId],
  );
  if (deleted.spans === 0) throw new NotFoundError('User', userId);
  return deleted;
}

/**
 * Deletes, whole, the traces among `traceIds` whose `column` ("endTime": the end of their latest
 * span; "startTime") is still before `time` once their locks are held: a trace that received a
 * span since it was chosen stays (retention, docs/observability.md#retention).
 */
export function deleteTracesBefore(ctx: RequestContext, traceIds: readonly string[], column: 'startTime' | 'endTime', time: Date): Promise<DeletedSpans> {
  return deleteSpans(
    ctx,
    traceIds,
    `EXISTS (SELECT 1 FROM "Trace" AS t WHERE t."projectId" = "Span"."projectId" AND t."traceId" = "Span"."traceId" AND t."${column}" < ?)`,
    [time],
  );
}
