// Aggregates over the traces or spans matching a filter (docs/observability.md#search): counts,
// errors, cost, tokens and latency percentiles, and the trace counts over time of the trace list's
// chart. Shared by GraphQL and REST.
import type { RequestContext } from '../../shared/context.js';
import { ValidationError } from '../../shared/errors.js';
import { costSumSql } from '../../shared/money.js';
import { scoreMeansByGroup, scoreSummaries, type ScoreSummary } from '../../scores/trace-search.js';
import { spanWhere, traceWhere, type SearchFilter, type Where } from './filters.js';

export interface Metrics {
  count: number;
  error_count: number;
  /** Share of the counted traces (spans) with status ERROR; null when none. */
  error_rate: number | null;
  /** USD; null when nothing reported or computed a cost. */
  cost: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  latency: { avg: number | null; min: number | null; max: number | null; p50: number | null; p95: number | null; p99: number | null };
}

/** Nearest-rank percentiles: the value at position ceil(p·n) of the sorted latencies. */
const percentiles = [
  ['p50', 0.5],
  ['p95', 0.95],
  ['p99', 0.99],
] as const;

/**
 * The totals, and on PostgreSQL the latency percentiles too (nearest-rank is its
 * `percentile_disc`), in one statement, so an expensive filter is evaluated once. SQLite takes
 * each percentile by walking the matches in latency order (`ORDER BY latency LIMIT 1 OFFSET n`),
 * which the (projectId, latency, environment, startTime) index answers alone for the common
 * filters; a window over the matches, sorted once, measured slower (docs/observability.md#search).
 */
async function metrics(ctx: RequestContext, table: string, alias: string, where: Where, errorSql: string): Promise<Metrics> {
  const { sql } = ctx;
  const a = (column: string) => `${alias}."${column}"`;
  const ranks =
    sql.provider === 'postgresql'
      ? percentiles.map(([name, p]) => `, percentile_disc(${p}) WITHIN GROUP (ORDER BY ${a('latency')}) AS "${name}"`).join('')
      : '';
  const [totals] = await sql.query<Record<string, number | bigint | null>>(
    ctx.db,
    `SELECT COUNT(*) AS "count", SUM(CASE WHEN ${errorSql} THEN 1 ELSE 0 END) AS "errors",
       ${costSumSql(a('cost'), sql)} AS "cost", SUM(${a('promptTokens')}) AS "prompt", SUM(${a('completionTokens')}) AS "completion",
       SUM(${a('totalTokens')}) AS "total", AVG(${a('latency')}) AS "avg", MIN(${a('latency')}) AS "min", MAX(${a('latency')}) AS "max"${ranks}
     FROM "${table}" AS ${alias} WHERE ${where.sql}`,
    where.params,
  );
  const num = (value: number | bigint | null | undefined) => (value === null || value === undefined ? null : Number(value));
  const count = num(totals.count) ?? 0;
  const failed = num(totals.errors) ?? 0;
  const latency: Metrics['latency'] = {
    avg: num(totals.avg),
    min: num(totals.min),
    max: num(totals.max),
    p50: num(totals.p50),
    p95: num(totals.p95),
    p99: num(totals.p99),
  };
  if (sql.provider !== 'postgresql' && count > 0) {
    for (const [name, p] of percentiles) {
      const [row] = await sql.query<{ latency: number }>(
        ctx.db,
        `SELECT ${a('latency')} AS "latency" FROM "${table}" AS ${alias} WHERE ${where.sql} ORDER BY ${a('latency')} LIMIT 1 OFFSET ?`,
        [...where.params, Math.max(0, Math.ceil(p * count) - 1)],
      );
      latency[name] = row ? Number(row.latency) : null;
    }
  }
  return {
    count,
    error_count: failed,
    error_rate: count > 0 ? failed / count : null,
    cost: num(totals.cost),
    prompt_tokens: num(totals.prompt),
    completion_tokens: num(totals.completion),
    total_tokens: num(totals.total),
    latency,
  };
}

export function traceMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  return metrics(ctx, 'Trace', 't', traceWhere(ctx, filter), `t."errorCount" > 0`);
}

export function spanMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  return metrics(ctx, 'Span', 's', spanWhere(ctx, filter), `s."statusCode" = 'ERROR'`);
}

/**
 * The scores named `names` (every name when null) of the traces matching `filter`, summed up per
 * name: count, mean with its 95% interval, label shares (docs/scores.md#in-the-trace-list).
 */
export function traceScoreSummaries(ctx: RequestContext, filter: SearchFilter, names: readonly string[] | null): Promise<ScoreSummary[]> {
  const where = traceWhere(ctx, filter);
  return scoreSummaries(ctx, { sql: `SELECT t."traceId" FROM "Trace" AS t WHERE ${where.sql}`, params: where.params }, names);
}

/** One score name's mean in one interval of `traceSeries`. */
export interface SeriesScore {
  name: string;
  /** Scores with a value of the traces that started in the interval. */
  count: number;
  mean: number;
}

/** One interval of `traceSeries`. */
export interface SeriesBucket {
  start: Date;
  end: Date;
  count: number;
  error_count: number;
  cost: number | null;
  avg_latency: number | null;
  /** The means of the scores asked for (`scoreNames`) that the interval's traces have. */
  scores: SeriesScore[];
}

export const MAX_SERIES_BUCKETS = 200;

/**
 * The traces matching `filter` counted over `buckets` equal intervals of time (the chart over the
 * trace list, docs/ui.md#the-trace-list): from `startedAfter` (else the earliest match) to
 * `startedBefore` (else the latest). Two queries: the range, then one grouped scan; a third for the means of `scoreNames`.
 */
export async function traceSeries(ctx: RequestContext, filter: SearchFilter, buckets: number, scoreNames: readonly string[] = []): Promise<SeriesBucket[]> {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_SERIES_BUCKETS) {
    throw ValidationError.at(['args', 'buckets'], `Input should be an integer from 1 to ${MAX_SERIES_BUCKETS}`, 'value_error');
  }
  const where = traceWhere(ctx, filter);
  const { sql } = ctx;
  const [range] = await sql.query<{ first: string | Date | null; last: string | Date | null }>(
    ctx.db,
    `SELECT MIN(t."startTime") AS "first", MAX(t."startTime") AS "last" FROM "Trace" AS t WHERE ${where.sql}`,
    where.params,
  );
  if (!range || range.first === null || range.last === null) return [];
  const from = filter.startedAfter?.getTime() ?? new Date(range.first).getTime();
  const to = filter.startedBefore?.getTime() ?? new Date(range.last).getTime();
  // At least a millisecond each (times are stored to the millisecond); the last bucket also holds
  // the traces that start exactly at `to`.
  const width = Math.max(to - from, buckets) / buckets;
  const bucket = sql.least(sql.floorToInt(sql.divide(`(${sql.epochMillis('t."startTime"')} - ?)`, '?')), '?');
  const rows = await sql.query<Record<string, number | bigint | string | null>>(
    ctx.db,
    `SELECT ${bucket} AS "bucket", COUNT(*) AS "count",
       SUM(CASE WHEN t."errorCount" > 0 THEN 1 ELSE 0 END) AS "errors", ${costSumSql('t."cost"', sql)} AS "cost", AVG(t."latency") AS "latency"
     FROM "Trace" AS t WHERE ${where.sql} GROUP BY 1`,
    [from, width, buckets - 1, ...where.params],
  );
  const byBucket = new Map(rows.map((row) => [Number(row.bucket), row]));
  // The scores' means: the same buckets of the same traces, each trace's scores joined to its bucket.
  const means = await scoreMeansByGroup(
    ctx,
    {
      sql: `SELECT ${bucket} AS "group", t."projectId" AS "projectId", t."traceId" AS "traceId" FROM "Trace" AS t WHERE ${where.sql}`,
      params: [from, width, buckets - 1, ...where.params],
    },
    scoreNames,
  );
  return Array.from({ length: buckets }, (_, i) => {
    const row = byBucket.get(i);
    return {
      start: new Date(Math.round(from + i * width)),
      end: new Date(Math.round(from + (i + 1) * width)),
      count: row ? Number(row.count) : 0,
      error_count: row ? Number(row.errors) : 0,
      cost: row?.cost == null ? null : Number(row.cost),
      avg_latency: row?.latency == null ? null : Number(row.latency),
      scores: means.filter((mean) => mean.group === i).map(({ name, count, mean }) => ({ name, count, mean })),
    };
  });
}
