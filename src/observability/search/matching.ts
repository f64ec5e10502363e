// The search's filters applied to given traces and spans rather than listed (docs/online-evaluation.md):
// which of a batch's traces or spans match, whether one still does, and the matching traces of a
// time range a page at a time in start order. Online evaluation plans and checks its jobs with
// these, so a rule's filter means exactly what the search means.
import type { RequestContext } from '../../shared/context.js';
import { sqlDate } from '../../shared/sql.js';
import { type SearchFilter, spanWhere, traceWhere } from './filters.js';

/** What `matchingTargetRows` looks for: the spans (`span`) or traces matching `filter`, of those stored since `since` when given. */
export interface TargetQuery {
  span: boolean;
  filter: SearchFilter;
  since: Date | null;
}

/**
 * For each query, the spans or traces of `traceIds` that match it, in one statement for all of
 * them (a batch's planning of every rule is one read): each row names the query it matched by
 * its index (`query`); a trace's row has no `spanId`.
 */
export function matchingTargetRows(
  ctx: RequestContext,
  queries: readonly TargetQuery[],
  traceIds: readonly string[],
): Promise<{ query: number; traceId: string; spanId: string | null; sessionId: string | null }[]> {
  if (queries.length === 0 || traceIds.length === 0) return Promise.resolve([]);
  const ids = JSON.stringify(traceIds);
  const params: unknown[] = [];
  const selects = queries.map((query, index) => {
    const [alias, where, spanId] = query.span ? ['s', spanWhere(ctx, query.filter), 's."spanId"'] : ['t', traceWhere(ctx, query.filter), 'NULL'];
    params.push(...where.params, ids, sqlDate(query.since ?? new Date(0)));
    return (
      `SELECT ${index} AS "query", ${alias}."traceId", ${spanId} AS "spanId", ${alias}."sessionId" FROM "${query.span ? 'Span' : 'Trace'}" AS ${alias} ` +
      `WHERE ${where.sql} AND ${alias}."traceId" IN (${ctx.sql.jsonValues('?')}) AND ${alias}."createdAt" >= ${ctx.sql.timestamp('?')}`
    );
  });
  return ctx.sql.query(ctx.db, selects.join(' UNION ALL '), params);
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
