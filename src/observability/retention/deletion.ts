// Deleting spans (docs/observability.md#deleting) under their traces' locks, the traces that keep
// spans rolled up again by ingestion's statement (ingestion/trace-rollups.ts): one trace by its id,
// every span one `user_id` sent (a privacy request), and the traces past a time (retention). Spans
// still waiting in the write queue are not reached: a deletion covers what was stored when it ran.
import type { RequestContext } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { deleteScoresOfSpans, deleteScoresOfTraces } from '../../scores/operations.js';
import { type SqlValue, traceLockKeys, type Tx } from '../../shared/sql.js';
import { rollUpTraceModels } from '../ingestion/trace-models.js';
import { rollUpTracesSql, spanRange } from '../ingestion/trace-rollups.js';

/** What a deletion took away: spans, and the traces left without any. */
export interface DeletedSpans {
  spans: number;
  traces: number;
}

/**
 * Deletes the spans matching `where` (SQL over "Span", with `params`) among `traceIds` of the
 * caller's project, in one transaction under the traces' locks: the traces left without spans go,
 * the others are rolled up again from their remaining spans (docs/observability.md#deleting).
 * `deletedSpans`, when only some spans of the traces go (a user's), are those spans, whose scores go.
 */
async function deleteSpans(
  ctx: RequestContext,
  traceIds: readonly string[],
  where: string,
  params: readonly SqlValue[],
  deletedSpans?: readonly { traceId: string; spanId: string }[],
): Promise<DeletedSpans> {
  if (traceIds.length === 0) return { spans: 0, traces: 0 };
  const { sql, projectId } = ctx;
  const ids = JSON.stringify(traceIds);
  return sql.transaction(async (tx) => {
    await sql.lockKeys(tx, traceLockKeys(projectId, traceIds));
    const { range } = await spanRange(ctx, tx, ids, null);
    // The log records joined with the spans about to go (docs/observability.md#otlp-logs).
    await sql.run(
      tx,
      `DELETE FROM "SpanLogRecord" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND EXISTS (
         SELECT 1 FROM "Span" WHERE "Span"."projectId" = "SpanLogRecord"."projectId" AND "Span"."traceId" = "SpanLogRecord"."traceId"
           AND "Span"."spanId" = "SpanLogRecord"."spanId" AND ${where})`,
      [projectId, ids, ...params],
    );
    const spans = await sql.run(tx, `DELETE FROM "Span" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND ${where}`, [
      projectId,
      ids,
      ...params,
    ]);
    const traces = await sql.run(
      tx,
      `DELETE FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})
         AND NOT EXISTS (SELECT 1 FROM "Span" AS s WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId")`,
      [projectId, ids],
    );
    await deleteLogRecordsOfGoneTraces(ctx, tx, traceIds);
    const now = new Date();
    await sql.run(tx, rollUpTracesSql(sql), [projectId, ids, ...range, now, now]);
    await rollUpTraceModels(ctx, tx, ids, range);
    // Their scores go with them (docs/scores.md#deleting): every score of a trace gone, and of the
    // deleted spans of a trace that stays.
    await deleteScoresOfTraces(sql, tx, projectId, await goneTraces(ctx, tx, traceIds));
    if (deletedSpans) await deleteScoresOfSpans(sql, tx, projectId, deletedSpans);
    return { spans, traces };
  });
}

/** Which of `traceIds` have no Trace row (any more), inside `tx`. */
export async function goneTraces(ctx: Pick<RequestContext, 'sql' | 'projectId'>, tx: Tx, traceIds: readonly string[]): Promise<string[]> {
  const kept = await ctx.sql.query<{ traceId: string }>(
    tx,
    `SELECT "traceId" AS "traceId" FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${ctx.sql.jsonValues('?')})`,
    [ctx.projectId, JSON.stringify(traceIds)],
  );
  const stays = new Set(kept.map((row) => row.traceId));
  return traceIds.filter((traceId) => !stays.has(traceId));
}

/**
 * Deletes the log records of the traces among `traceIds` that are gone (no Trace row): those whose
 * span never arrived go with their trace. Inside the caller's transaction, under the traces' locks.
 */
export async function deleteLogRecordsOfGoneTraces(ctx: RequestContext, tx: Tx, traceIds: readonly string[]): Promise<number> {
  const { sql, projectId } = ctx;
  return sql.run(
    tx,
    `DELETE FROM "SpanLogRecord" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})
       AND NOT EXISTS (SELECT 1 FROM "Trace" AS t WHERE t."projectId" = "SpanLogRecord"."projectId" AND t."traceId" = "SpanLogRecord"."traceId")`,
    [projectId, JSON.stringify(traceIds)],
  );
}

/**
 * Retention of the log records whose trace never arrived at all (no Trace row): they go once
 * stored before `time`, as their trace would have. Answers how many went.
 */
export async function deleteUnjoinedLogRecords(ctx: RequestContext, time: Date): Promise<number> {
  const { sql, projectId } = ctx;
  return sql.transaction((tx) =>
    sql.run(
      tx,
      `DELETE FROM "SpanLogRecord" WHERE "projectId" = ? AND "createdAt" < ?
         AND NOT EXISTS (SELECT 1 FROM "Trace" AS t WHERE t."projectId" = "SpanLogRecord"."projectId" AND t."traceId" = "SpanLogRecord"."traceId")`,
      [projectId, time],
    ),
  );
}

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
  const spans = await ctx.sql.query<{ traceId: string; spanId: string }>(
    ctx.db,
    'SELECT "traceId" AS "traceId", "spanId" AS "spanId" FROM "Span" WHERE "projectId" = ? AND "userId" = ?',
    [ctx.projectId, userId],
  );
  const deleted = await deleteSpans(ctx, [...new Set(spans.map((span) => span.traceId))], '"userId" = ?', [userId], spans);
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
