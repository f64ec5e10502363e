// Aggregates over the traces or spans matching a filter (docs/observability.md#search): counts,
// errors, cost, tokens and latency percentiles, and the trace counts over time of the trace list's
// chart. Shared by GraphQL and REST.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { perRequest, type RequestContext } from '../../shared/context.js';
import { ValidationError } from '../../shared/errors.js';
import { costSumSql } from '../../shared/money.js';
import {
  scoreFiguresByGroup,
  scoreFiguresByTraceStart,
  scoreMeansByGroup,
  scoreSummaries,
  type ScoreGroupFigures,
  type ScoreSummary,
} from '../../scores/trace-search.js';
import type { SqlValue } from '../../shared/sql.js';
import { spanWhere, traceTimes, traceTimesOnly, traceWhere, type SearchFilter, type Where } from './filters.js';
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
 * The totals, and on PostgreSQL the latency percentiles too (nearest-rank is its `percentile_disc`),
 * in one statement, so an expensive filter is evaluated once. SQLite takes
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

/** The first and last start (milliseconds since the epoch) of the matching traces. */
interface Range {
  first: number;
  last: number;
}

const totalsKey = Symbol('traceTotals');

/**
 * The metrics of the traces matching `filter`, once per request and filter: from the request's read
 * of the matching traces (trace-figures.ts), else one statement (two more for SQLite's percentiles).
 */
function traceTotals(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  const totals = perRequest(ctx, totalsKey, () => new Map<string, Promise<Metrics>>());
  const key = JSON.stringify(filter);
  let read = totals.get(key);
  if (!read) {
    read = (async () => {
      const figures = await traceFigures(ctx, filter);
      if (!figures) return metrics(ctx, 'Trace', 't', traceWhere(ctx, filter), `t."errorCount" > 0`);
      // The sums and sort wait a turn of the event loop: the score figures asked over the filter in
      // this turn go to the read worker first and run beside them (docs/observability.md#search).
      await nextTurn();
      return metricsOf(figures);
    })();
    totals.set(key, read);
  }
  return read;
}

export function traceMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  return traceTotals(ctx, filter);
}

export function spanMetrics(ctx: RequestContext, filter: SearchFilter): Promise<Metrics> {
  return metrics(ctx, 'Span', 's', spanWhere(ctx, filter), `s."statusCode" = 'ERROR'`);
}

/** The chart's intervals over a filter's traces: `buckets` of `width` milliseconds from `from`. */
interface Grid {
  from: number;
  width: number;
  buckets: number;
}

const rangesKey = Symbol('traceRanges');

const rangeOf = (figures: TraceFigures): Range | null =>
  figures.starts.length > 0 ? { first: figures.starts.reduce((a, b) => Math.min(a, b)), last: figures.starts.reduce((a, b) => Math.max(a, b)) } : null;

/**
 * The first and last start of the traces matching `filter` (null when none match), once per request
 * and filter, as early as can be: the chart's counts and the score figures need it for their
 * intervals, and do not wait for the totals (docs/observability.md#search). PostgreSQL: a statement
 * of its own, each end the first match of a walk of the start index (a few milliseconds where the
 * filter keeps many traces), so that the figures run beside the totals on the pool. SQLite: from
 * the request's read of the matches, whose statement is about what a range alone costs there; when
 * the filter asks time and environment alone (or the read is not kept), one pass over the start
 * index, asked before that read takes this thread, so that the score figures, which then need
 * nothing else, are on the read worker first.
 */
function traceRange(ctx: RequestContext, filter: SearchFilter): Promise<Range | null> {
  const ranges = perRequest(ctx, rangesKey, () => new Map<string, Promise<Range | null>>());
  const key = JSON.stringify(filter);
  let read = ranges.get(key);
  if (!read) {
    read = ctx.sql.provider === 'sqlite' && !traceTimesOnly(filter) ? rangeOfRead(ctx, filter) : rangeStatement(ctx, filter);
    ranges.set(key, read);
  }
  return read;
}

async function rangeOfRead(ctx: RequestContext, filter: SearchFilter): Promise<Range | null> {
  const figures = await traceFigures(ctx, filter);
  return figures ? rangeOf(figures) : rangeStatement(ctx, filter);
}

/** The range as one statement: PostgreSQL's two walks of the start index, SQLite's one pass (its plan for the walks sorted every match). */
function rangeStatement(ctx: RequestContext, filter: SearchFilter): Promise<Range | null> {
  const { sql } = ctx;
  const where = traceWhere(ctx, filter);
  const end = (direction: string) =>
    `(SELECT ${sql.epochMillis('t."startTime"')} FROM "Trace" AS t WHERE ${where.sql} ORDER BY t."startTime" ${direction} LIMIT 1)`;
  const [statement, params] =
    sql.provider === 'postgresql'
      ? [`SELECT ${end('ASC')} AS "first", ${end('DESC')} AS "last"`, [...where.params, ...where.params]]
      : [
          `SELECT ${sql.epochMillis('MIN(t."startTime")')} AS "first", ${sql.epochMillis('MAX(t."startTime")')} AS "last" FROM "Trace" AS t WHERE ${where.sql}`,
          where.params,
        ];
  return sql
    .all<{ first: number | string | null; last: number | string | null }>(statement, params as SqlValue[])
    .then(([row]) => (row.first === null || row.last === null ? null : { first: Number(row.first), last: Number(row.last) }));
}

/** The chart's intervals: from `startedAfter` (else the first match) to `startedBefore` (else the last); null when none match. */
async function seriesGrid(ctx: RequestContext, filter: SearchFilter, buckets: number): Promise<Grid | null> {
  const range = await traceRange(ctx, filter);
  if (!range) return null;
  const from = filter.startedAfter?.getTime() ?? range.first;
  const to = filter.startedBefore?.getTime() ?? range.last;
  // At least a millisecond each (times are stored to the millisecond); the last bucket also holds
  // the traces that start exactly at `to`.
  return { from, width: Math.max(to - from, buckets) / buckets, buckets };
}

/**
 * The interval of the chart a trace falls in, as SQL over its start (`column`), with its
 * parameters: `Math.floor((start − from) / width)`, the last taking the rest. The start is
 * compared with each interval's first millisecond rather than turned into a number: SQLite's epoch
 * of a stored time (two strftime calls) cost more than the rest of a scan of 50,000 traces, and
 * PostgreSQL's (`EXTRACT`, a numeric) about as much over the 84,000 scores of a page
 * (docs/database.md#benchsearch).
 */
function bucketOf(ctx: RequestContext, grid: Grid, column = 't."startTime"'): { sql: string; params: unknown[] } {
  const bucket = (start: number) => Math.min(Math.floor((start - grid.from) / grid.width), grid.buckets - 1);
  const firstOf = (i: number) => {
    let start = Math.ceil(grid.from + i * grid.width);
    while (bucket(start - 1) >= i) start--;
    while (bucket(start) < i) start++;
    return new Date(start);
  };
  if (ctx.sql.provider === 'postgresql') {
    // width_bucket finds the interval among the sorted firsts by binary search. The times are
    // UTC, as stored (a zone in the text is ignored by timestamp without time zone).
    const firsts = Array.from({ length: grid.buckets - 1 }, (_, i) => firstOf(i + 1).toISOString());
    return { sql: `width_bucket(${column}, ARRAY(SELECT jsonb_array_elements_text(?::jsonb)::timestamp(3)))`, params: [JSON.stringify(firsts)] };
  }
  // SQLite: stored times are ISO text, which sorts as time; a binary search of nested CASEs.
  const params: unknown[] = [];
  const search = (low: number, high: number): string => {
    if (low === high) return String(low);
    const middle = Math.ceil((low + high) / 2);
    params.push(firstOf(middle));
    return `CASE WHEN ${column} < ? THEN ${search(low, middle - 1)} ELSE ${search(middle, high)} END`;
  };
  return { sql: search(0, grid.buckets - 1), params };
}

/** What one field of the page asks of the score figures: a summary of names (null: every name), or the chart's means. */
type ScoreAsk = { summary: readonly string[] | null } | { buckets: number; means: readonly string[] };

/** The score figures of one filter that the fields of a request ask, gathered into one statement. */
interface ScoreBatch {
  /** The summaries' names: undefined when no summary is asked, null for every name. */
  summary?: Set<string> | null;
  chart?: { buckets: number; names: Set<string> };
  open: boolean;
  figures: Promise<ScoreGroupFigures[]>;
}

const batchesKey = Symbol('scoreBatches');

/**
 * The score figures `ask` needs over the traces matching `filter`. The page asks its summaries and
 * its chart's means in one request, fields resolved at once: the asks of one filter made before
 * the next microtask (GraphQL calls a query's root resolvers one after the other, synchronously)
 * share one statement over the names' scores, the filter evaluated once
 * (docs/observability.md#search), grouped by the chart's interval when a chart asks. Gathered by a
 * microtask rather than a turn of the event loop, so that on SQLite the statement is on the read
 * worker before the page's list takes the serving thread.
 */
function scoreFigures(ctx: RequestContext, filter: SearchFilter, ask: ScoreAsk): Promise<ScoreGroupFigures[]> {
  const batches = perRequest(ctx, batchesKey, () => new Map<string, ScoreBatch>());
  const key = JSON.stringify(filter);
  let batch = batches.get(key);
  if (!batch?.open || ('buckets' in ask && batch.chart && batch.chart.buckets !== ask.buckets)) {
    const made: ScoreBatch = { open: true, figures: Promise.resolve([]) };
    made.figures = Promise.resolve().then(() => {
      made.open = false;
      return readScoreFigures(ctx, filter, made);
    });
    batches.set(key, (batch = made));
  }
  if ('buckets' in ask) {
    batch.chart ??= { buckets: ask.buckets, names: new Set() };
    for (const name of ask.means) batch.chart.names.add(name);
  } else if (ask.summary === null) batch.summary = null;
  else if (batch.summary !== null) {
    batch.summary ??= new Set();
    for (const name of ask.summary) batch.summary.add(name);
  }
  return batch.figures;
}

async function readScoreFigures(ctx: RequestContext, filter: SearchFilter, batch: ScoreBatch): Promise<ScoreGroupFigures[]> {
  const names = batch.summary === null ? null : [...new Set([...(batch.summary ?? []), ...(batch.chart?.names ?? [])])];
  if (names?.length === 0) return [];
  // A filter of time and environment alone: the scores carry their trace's start and environment,
  // and are read without the traces; on PostgreSQL any other filter too, with the matching traces'
  // ids (docs/observability.md#search).
  const times = traceTimesOnly(filter);
  if (times || ctx.sql.provider === 'postgresql') {
    const grid = batch.chart ? await seriesGrid(ctx, filter, batch.chart.buckets) : undefined;
    if (grid === null) return [];
    const where = times ? null : traceWhere(ctx, filter);
    return scoreFiguresByTraceStart(
      ctx,
      times ?? traceTimes(filter),
      names,
      (start) => (grid ? bucketOf(ctx, grid, start) : { sql: '0', params: [] }),
      where ? { sql: `SELECT t."traceId" FROM "Trace" AS t WHERE ${where.sql}`, params: where.params } : undefined,
    );
  }
  const where = traceWhere(ctx, filter);
  // SQLite's plan depends on how many traces match: the request's read of them counts them.
  const count = (await traceFigures(ctx, filter))?.starts.length;
  let group: { sql: string; params: unknown[] } = { sql: '0', params: [] };
  if (batch.chart) {
    const grid = await seriesGrid(ctx, filter, batch.chart.buckets);
    if (!grid) return [];
    group = bucketOf(ctx, grid);
  }
  return scoreFiguresByGroup(
    ctx,
    { sql: `SELECT ${group.sql} AS "group", t."traceId" AS "traceId" FROM "Trace" AS t WHERE ${where.sql}`, params: [...group.params, ...where.params] },
    names,
    count,
  );
}

/**
 * The scores named `names` (every name when null) of the traces matching `filter`, summed up per
 * name: count, mean with its 95% interval, label shares (docs/scores.md#in-the-trace-list).
 */
export async function traceScoreSummaries(ctx: RequestContext, filter: SearchFilter, names: readonly string[] | null): Promise<ScoreSummary[]> {
  if (names?.length === 0) return [];
  return scoreSummaries(await scoreFigures(ctx, filter, { summary: names }), names);
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
 * `startedBefore` (else the latest). The range is traceRange's; the counts from the request's read
 * of the matching traces (trace-figures.ts), else one grouped scan; the means of `scoreNames` from
 * the page's one score statement (scoreFigures).
 */
export async function traceSeries(ctx: RequestContext, filter: SearchFilter, buckets: number, scoreNames: readonly string[] = []): Promise<SeriesBucket[]> {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_SERIES_BUCKETS) {
    throw ValidationError.at(['args', 'buckets'], `Input should be an integer from 1 to ${MAX_SERIES_BUCKETS}`, 'value_error');
  }
  // Asked before any wait, so that the page's summaries join the same statement.
  const scores = scoreNames.length > 0 ? scoreFigures(ctx, filter, { buckets, means: scoreNames }) : Promise.resolve([]);
  const grid = await seriesGrid(ctx, filter, buckets);
  if (!grid) {
    await scores;
    return [];
  }
  const { from, width } = grid;
  const byBucket = new Map<number, BucketFigures>();
  const figures = await traceFigures(ctx, filter);
  if (figures) {
    const members: number[][] = Array.from({ length: buckets }, () => []);
    // Clamped at both ends: the range may be a statement of its own (traceRange), and a trace
    // stored between it and the read falls in the first or last interval, as SQL's do.
    figures.starts.forEach((start, i) => members[Math.max(0, Math.min(Math.floor((start - from) / width), buckets - 1))].push(i));
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
    const where = traceWhere(ctx, filter);
    const bucket = bucketOf(ctx, grid);
    const rows = await ctx.sql.query<Record<string, number | bigint | string | null>>(
      ctx.db,
      `SELECT ${bucket.sql} AS "bucket", COUNT(*) AS "count",
         SUM(CASE WHEN t."errorCount" > 0 THEN 1 ELSE 0 END) AS "errors", ${costSumSql('t."cost"', ctx.sql)} AS "cost", AVG(t."latency") AS "latency"
       FROM "Trace" AS t WHERE ${where.sql} GROUP BY 1`,
      [...bucket.params, ...where.params],
    );
    const num = (value: number | bigint | string | null) => (value === null ? null : Number(value));
    for (const row of rows)
      byBucket.set(Number(row.bucket), { count: Number(row.count), errors: Number(row.errors), cost: num(row.cost), latency: num(row.latency) });
  }
  // The scores' means: the same buckets of the same traces, each trace's scores joined to its bucket.
  const means = scoreMeansByGroup(await scores, scoreNames);
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
