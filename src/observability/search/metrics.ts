// Aggregates over the traces or spans matching a filter (docs/observability.md#search): counts,
// errors, cost, tokens and latency percentiles, and the trace counts over time of the trace list's
// chart. Shared by GraphQL and REST.
import type { RequestContext } from '../../shared/context.js';
import { ValidationError } from '../../shared/errors.js';
import { costSumSql } from '../../shared/money.js';
import { scoreMeansByGroup, scoreSummaries, type ScoreSummary } from '../../scores/trace-search.js';
import { spanWhere, traceWhere, type SearchFilter, type Where } from './filters.js';
import { sumOf, traceFigures, type TraceFigures } from './trace-figures.js';

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

/** `metrics` of the traces of `figures`, computed in memory. */
function metricsOf(figures: TraceFigures): Metrics {
  const count = figures.starts.length;
  const sorted = Float64Array.from(figures.latencies).sort();
  const failed = figures.failed.reduce((sum, one) => sum + one, 0);
  const rank = (p: number) => (count > 0 ? sorted[Math.max(0, Math.ceil(p * count) - 1)] : null);
  return {
    count,
    error_count: failed,
    error_rate: count > 0 ? failed / count : null,
    cost: sumOf(figures.costs, undefined, true),
    prompt_tokens: sumOf(figures.prompt),
    completion_tokens: sumOf(figures.completion),
    total_tokens: sumOf(figures.total),
    latency: {
      avg: count > 0 ? sorted.reduce((sum, latency) => sum + latency, 0) / count : null,
      min: count > 0 ? sorted[0] : null,
      max: count > 0 ? sorted[count - 1] : null,
      p50: rank(0.5),
      p95: rank(0.95),
      p99: rank(0.99),
    },
  };
}

export async function traceMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  const figures = await traceFigures(ctx, filter);
  if (figures) return metricsOf(figures);
  return metrics(ctx, 'Trace', 't', traceWhere(ctx, filter), `t."errorCount" > 0`);
}

export function spanMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  return metrics(ctx, 'Span', 's', spanWhere(ctx, filter), `s."statusCode" = 'ERROR'`);
}

/**
 * The scores named `names` (every name when null) of the traces matching `filter`, summed up per
 * name: count, mean with its 95% interval, label shares (docs/scores.md#in-the-trace-list).
 */
export async function traceScoreSummaries(ctx: RequestContext, filter: SearchFilter, names: readonly string[] | null): Promise<ScoreSummary[]> {
  const where = traceWhere(ctx, filter);
  // SQLite's plan depends on how many traces match: the request's read of them counts them.
  const count = ctx.sql.provider === 'sqlite' && names?.length !== 0 ? (await traceFigures(ctx, filter))?.starts.length : undefined;
  return scoreSummaries(ctx, { sql: `SELECT t."traceId" FROM "Trace" AS t WHERE ${where.sql}`, params: where.params }, names, count);
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

/** One interval's figures before its scores: a row of the grouped SQL, or computed in memory. */
interface BucketFigures {
  count: number;
  errors: number;
  cost: number | null;
  latency: number | null;
}

/**
 * The traces matching `filter` counted over `buckets` equal intervals of time (the chart over the
 * trace list, docs/ui.md#the-trace-list): from `startedAfter` (else the earliest match) to
 * `startedBefore` (else the latest). The counts from the request's read of the matching traces
 * (trace-figures.ts), else two queries: the range, then one grouped scan; one more for the means of `scoreNames`.
 */
export async function traceSeries(ctx: RequestContext, filter: SearchFilter, buckets: number, scoreNames: readonly string[] = []): Promise<SeriesBucket[]> {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_SERIES_BUCKETS) {
    throw ValidationError.at(['args', 'buckets'], `Input should be an integer from 1 to ${MAX_SERIES_BUCKETS}`, 'value_error');
  }
  const where = traceWhere(ctx, filter);
  const { sql } = ctx;
  const figures = await traceFigures(ctx, filter);
  let range: { first: number; last: number } | null = null;
  if (figures) {
    if (figures.starts.length > 0) range = { first: figures.starts.reduce((a, b) => Math.min(a, b)), last: figures.starts.reduce((a, b) => Math.max(a, b)) };
  } else {
    const [row] = await sql.query<{ first: string | Date | null; last: string | Date | null }>(
      ctx.db,
      `SELECT MIN(t."startTime") AS "first", MAX(t."startTime") AS "last" FROM "Trace" AS t WHERE ${where.sql}`,
      where.params,
    );
    if (row && row.first !== null && row.last !== null) range = { first: new Date(row.first).getTime(), last: new Date(row.last).getTime() };
  }
  if (!range) return [];
  const from = filter.startedAfter?.getTime() ?? range.first;
  const to = filter.startedBefore?.getTime() ?? range.last;
  // At least a millisecond each (times are stored to the millisecond); the last bucket also holds
  // the traces that start exactly at `to`.
  const width = Math.max(to - from, buckets) / buckets;
  const bucket = sql.least(sql.floorToInt(sql.divide(`(${sql.epochMillis('t."startTime"')} - ?)`, '?')), '?');
  const byBucket = new Map<number, BucketFigures>();
  if (figures) {
    const members: number[][] = Array.from({ length: buckets }, () => []);
    figures.starts.forEach((start, i) => members[Math.min(Math.floor((start - from) / width), buckets - 1)].push(i));
    members.forEach((entries, i) => {
      if (entries.length === 0) return;
      byBucket.set(i, {
        count: entries.length,
        errors: entries.reduce((sum, entry) => sum + figures.failed[entry], 0),
        cost: sumOf(figures.costs, entries, true),
        latency: entries.reduce((sum, entry) => sum + figures.latencies[entry], 0) / entries.length,
      });
    });
  } else {
    const rows = await sql.query<Record<string, number | bigint | string | null>>(
      ctx.db,
      `SELECT ${bucket} AS "bucket", COUNT(*) AS "count",
         SUM(CASE WHEN t."errorCount" > 0 THEN 1 ELSE 0 END) AS "errors", ${costSumSql('t."cost"', sql)} AS "cost", AVG(t."latency") AS "latency"
       FROM "Trace" AS t WHERE ${where.sql} GROUP BY 1`,
      [from, width, buckets - 1, ...where.params],
    );
    const num = (value: number | bigint | string | null) => (value === null ? null : Number(value));
    for (const row of rows)
      byBucket.set(Number(row.bucket), { count: Number(row.count), errors: Number(row.errors), cost: num(row.cost), latency: num(row.latency) });
  }
  // The scores' means: the same buckets of the same traces, each trace's scores joined to its bucket.
  const means = await scoreMeansByGroup(
    ctx,
    {
      sql: `SELECT ${bucket} AS "group", t."projectId" AS "projectId", t."traceId" AS "traceId" FROM "Trace" AS t WHERE ${where.sql}`,
      params: [from, width, buckets - 1, ...where.params],
    },
    scoreNames,
    figures?.starts.length,
  );
  return Array.from({ length: buckets }, (_, i) => {
    const figuresOf = byBucket.get(i);
    return {
      start: new Date(Math.round(from + i * width)),
      end: new Date(Math.round(from + (i + 1) * width)),
      count: figuresOf?.count ?? 0,
      error_count: figuresOf?.errors ?? 0,
      cost: figuresOf?.cost ?? null,
      avg_latency: figuresOf?.latency ?? null,
      scores: means.filter((mean) => mean.group === i).map(({ name, count, mean }) => ({ name, count, mean })),
    };
  });
}
