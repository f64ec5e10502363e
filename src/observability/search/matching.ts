// The search's filters applied to given traces and spans rather than listed (docs/online-evaluation.md):
// which of a batch's traces or spans match, whether one still does, and the matching traces of a
// time range a page at a time in start order. Online evaluation plans and checks its jobs with
// these, so a rule's filter means exactly what the search means.
import type { RequestContext } from '../../shared/context.js';
import { sqlDate } from '../../shared/sql.js';
import { type SearchFilter, spanWhere, traceWhere } from './filters.js';

/** The spans of `traceIds` matching `filter`, of those stored since `since` when given. */
export function matchingSpans(
  ctx: RequestContext,
  filter: SearchFilter,
  traceIds: readonly string[],
  since: Date | null,
): Promise<{ traceId: string; spanId: string; sessionId: string | null }[]> {
  const where = spanWhere(ctx, filter);
  return ctx.sql.query(
    ctx.db,
    `SELECT s."traceId", s."spanId", s."sessionId" FROM "Span" AS s WHERE ${where.sql} AND s."traceId" IN (${ctx.sql.jsonValues('?')}) AND s."createdAt" >= ${ctx.sql.timestamp('?')}`,
    [...where.params, JSON.stringify(traceIds), sqlDate(since ?? new Date(0))],
  );
}

/** The traces of `traceIds` matching `filter`, of those first stored since `since` when given. */
export function matchingTraces(
  ctx: RequestContext,
  filter: SearchFilter,
  traceIds: readonly string[],
  since: Date | null,
): Promise<{ traceId: string; sessionId: string | null }[]> {
  const where = traceWhere(ctx, filter);
  return ctx.sql.query(
    ctx.db,
    `SELECT t."traceId", t."sessionId" FROM "Trace" AS t WHERE ${where.sql} AND t."traceId" IN (${ctx.sql.jsonValues('?')}) AND t."createdAt" >= ${ctx.sql.timestamp('?')}`,
    [...where.params, JSON.stringify(traceIds), sqlDate(since ?? new Date(0))],
  );
}

/** Whether the span matches `filter`. */
export async function spanMatches(ctx: RequestContext, filter: SearchFilter, traceId: string, spanId: string): Promise<boolean> {
  const where = spanWhere(ctx, filter);
  const rows = await ctx.sql.query(ctx.db, `SELECT 1 AS one FROM "Span" AS s WHERE ${where.sql} AND s."traceId" = ? AND s."spanId" = ? LIMIT 1`, [
    ...where.params,
    traceId,
    spanId,
  ]);
  return rows.length > 0;
}

/** Whether the trace matches `filter`; for a session, whether any of its traces does. */
export async function traceMatches(ctx: RequestContext, filter: SearchFilter, by: { traceId: string } | { sessionId: string }): Promise<boolean> {
  const where = traceWhere(ctx, filter);
  const [column, id] = 'traceId' in by ? ['traceId', by.traceId] : ['sessionId', by.sessionId];
  const rows = await ctx.sql.query(ctx.db, `SELECT 1 AS one FROM "Trace" AS t WHERE ${where.sql} AND t."${column}" = ? LIMIT 1`, [...where.params, id]);
  return rows.length > 0;
}

/** The traces matching `filter` (its time range included), counted up to `limit`. */
export async function countMatchingTraces(ctx: RequestContext, filter: SearchFilter, limit: number): Promise<number> {
  const where = traceWhere(ctx, filter);
  const [row] = await ctx.sql.query<{ n: number | bigint }>(ctx.db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM "Trace" AS t WHERE ${where.sql} LIMIT ?) AS c`, [
    ...where.params,
    limit,
  ]);
  return Number(row.n);
}

/**
 * The next `limit` traces matching `filter` in (start time, trace id) order after `cursor`
 * ("<startTime ISO>|<traceId>", null to begin), each with the cursor that follows it.
 */
export async function matchingTracePage(
  ctx: RequestContext,
  filter: SearchFilter,
  cursor: string | null,
  limit: number,
): Promise<{ traceId: string; cursor: string }[]> {
  const where = traceWhere(ctx, filter);
  const params: unknown[] = [...where.params];
  let after = '';
  if (cursor) {
    const bar = cursor.indexOf('|');
    const at = sqlDate(new Date(cursor.slice(0, bar)));
    after = ` AND (t."startTime" > ${ctx.sql.timestamp('?')} OR (t."startTime" = ${ctx.sql.timestamp('?')} AND t."traceId" > ?))`;
    params.push(at, at, cursor.slice(bar + 1));
  }
  const rows = await ctx.sql.query<{ traceId: string; startTime: Date | string }>(
    ctx.db,
    `SELECT t."traceId", t."startTime" FROM "Trace" AS t WHERE ${where.sql}${after} ORDER BY t."startTime", t."traceId" LIMIT ?`,
    [...params, limit],
  );
  return rows.map((row) => ({ traceId: row.traceId, cursor: `${new Date(row.startTime).toISOString()}|${row.traceId}` }));
}
