// The trace list's figures over a filter from one read of the matching traces, on SQLite
// (docs/observability.md#search): the page's metrics and chart each evaluated the filter again (six
// statements over every matching trace, each re-running a score or model filter's join), so a
// request reads the matching traces' figure columns once, keyed by its filter, and the metrics and
// the chart's counts are computed from that read in memory. Past FIGURES_IN_MEMORY matching traces
// the read is not kept and metrics.ts computes each figure in SQL. The score figures stay in SQL
// (scores/trace-search.ts): walking the names' scores there beat reading them into memory.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { perRequest, type RequestContext } from '../../shared/context.js';
import { roundCost } from '../../shared/money.js';
import { traceTimesOnly, traceWhere, type SearchFilter } from './filters.js';

/** Most matching traces whose figures a request holds in memory (about 60 bytes each). */
export const FIGURES_IN_MEMORY = 200_000;

/** The figure columns of the traces matching a filter, one entry per trace, in no order. */
export interface TraceFigures {
  /** Milliseconds since the epoch. */
  starts: Float64Array;
  latencies: Float64Array;
  failed: Uint8Array;
  costs: (number | null)[];
  prompt: (number | null)[];
  completion: (number | null)[];
  total: (number | null)[];
}

interface FigureRow {
  startTime: string;
  latency: number;
  errorCount: number;
  cost: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
}

const memoKey = Symbol('traceFigures');

const digits = (text: string, from: number, count: number) => {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
};

/**
 * Milliseconds since the epoch of a stored start: the text Prisma's adapter writes
 * ("2026-11-28T22:27:24.041+00:00") read digit by digit (50,000 in 5–8 ms, Date.parse 15–30 ms);
 * any other form through Date.parse.
 */
function startMillis(text: string): number {
  if (text.length === 29 && text.charCodeAt(10) === 84 /* T */ && text.endsWith('+00:00')) {
    return Date.UTC(
      digits(text, 0, 4),
      digits(text, 5, 2) - 1,
      digits(text, 8, 2),
      digits(text, 11, 2),
      digits(text, 14, 2),
      digits(text, 17, 2),
      digits(text, 20, 3),
    );
  }
  return Date.parse(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
}
const num = (value: number | bigint | string | null) => (value === null ? null : Number(value));

async function readFigures(ctx: RequestContext, filter: SearchFilter): Promise<TraceFigures | null> {
  // A filter of time and environment alone: the request's score figures need nothing of this read
  // (metrics.ts traceRange), and are on the read worker before it holds this thread, a turn of the
  // event loop later (docs/observability.md#search).
  if (traceTimesOnly(filter)) await nextTurn();
  const where = traceWhere(ctx, filter);
  const rows = await ctx.sql.all<FigureRow>(
    `SELECT t."startTime" AS "startTime", t."latency" AS "latency", t."errorCount" AS "errorCount", t."cost" AS "cost",
       t."promptTokens" AS "promptTokens", t."completionTokens" AS "completionTokens", t."totalTokens" AS "totalTokens"
     FROM "Trace" AS t WHERE ${where.sql} LIMIT ?`,
    [...(where.params as Parameters<typeof ctx.sql.all>[1]), FIGURES_IN_MEMORY + 1],
  );
  if (rows.length > FIGURES_IN_MEMORY) return null;
  const n = rows.length;
  const figures: TraceFigures = {
    starts: new Float64Array(n),
    latencies: new Float64Array(n),
    failed: new Uint8Array(n),
    costs: new Array<number | null>(n),
    prompt: new Array<number | null>(n),
    completion: new Array<number | null>(n),
    total: new Array<number | null>(n),
  };
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    figures.starts[i] = startMillis(row.startTime);
    figures.latencies[i] = Number(row.latency);
    figures.failed[i] = Number(row.errorCount) > 0 ? 1 : 0;
    figures.costs[i] = num(row.cost);
    figures.prompt[i] = num(row.promptTokens);
    figures.completion[i] = num(row.completionTokens);
    figures.total[i] = num(row.totalTokens);
  }
  return figures;
}

/**
 * The figures of the traces matching `filter`, read once per request and filter (the page's
 * metrics, chart and summaries resolve at once and share the read); null when more than
 * FIGURES_IN_MEMORY match, and on PostgreSQL.
 */
export function traceFigures(ctx: RequestContext, filter: SearchFilter): Promise<TraceFigures | null> {
  // PostgreSQL computes the totals and percentiles in one statement already, and carrying every
  // match's row to the service measured slower there than its three statements (docs/database.md#benchsearch).
  if (ctx.sql.provider === 'postgresql') return Promise.resolve(null);
  const reads = perRequest(ctx, memoKey, () => new Map<string, Promise<TraceFigures | null>>());
  const key = JSON.stringify(filter);
  let read = reads.get(key);
  if (!read) reads.set(key, (read = readFigures(ctx, filter)));
  return read;
}

/**
 * Sums of the entries `of` picks (all when absent), as SQL's SUM answers them: null when none is
 * a number. Costs are summed with Neumaier's compensation and rounded to the pico-dollar, as
 * SQLite's SUM and costSumSql do (shared/money.ts).
 */
export function sumOf(values: readonly (number | null)[], of?: readonly number[], cost = false): number | null {
  let sum = 0;
  let compensation = 0;
  let any = false;
  const add = (value: number | null) => {
    if (value === null) return;
    any = true;
    const next = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
    sum = next;
  };
  if (of) for (const i of of) add(values[i]);
  else for (const value of values) add(value);
  if (!any) return null;
  return cost ? roundCost(sum + compensation) : sum + compensation;
}
