// Finding traces and spans (docs/observability.md#search): filters, sorting, keyset (cursor)
// pagination and aggregate metrics over a filter, shared by GraphQL and REST. Raw SQL over the
// indexed columns: Trace rows carry their roll-ups (root name, kind, status, user, session,
// environment, app, variant, cost, tokens, latency), so most trace filters touch only the Trace
// table; "model" and "text" look into the trace's spans through the span primary key (projectId,
// traceId, …).
import { costSumSql } from '../shared/money.js';
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import type { BulkSql } from '../shared/sql.js';
import { ValidationError } from '../shared/errors.js';
import { EVALUATION_ENVIRONMENT, type SpanKind, type SpanStatus } from './ingest.js';
import type { SpanRow } from './read.js';

export type TraceRow = Prisma.TraceGetPayload<object>;

export interface SearchFilter {
  startedAfter?: Date;
  startedBefore?: Date;
  /** Part of the name (traces: the root's), ignoring the case of ASCII letters. */
  nameContains?: string;
  /** Spans: their kind; traces: the root span's kind. */
  spanKinds?: SpanKind[];
  /** Spans: their status; traces: ERROR when any span failed, else the root's status. */
  statuses?: SpanStatus[];
  userId?: string;
  sessionId?: string;
  environment?: string;
  appId?: string;
  variantId?: string;
  variantName?: string;
  /** A model name, or a family: "gpt-4o" also matches "gpt-4o-2024-08-06". Traces: any span's. */
  model?: string;
  /** Text in the inputs or outputs (traces: of any span), ignoring ASCII case. */
  text?: string;
  minCost?: number;
  maxCost?: number;
  /** Seconds. */
  minLatency?: number;
  maxLatency?: number;
  /** Spans only: spans of this trace. */
  traceId?: string;
  /**
   * Also the traces (spans) of Assay's own evaluation calls, which are left out unless this is
   * set or `environment` names theirs (EVALUATION_ENVIRONMENT).
   */
  includeEvaluations?: boolean;
}

export const traceSortFields = ['start_time', 'latency', 'cost', 'tokens', 'span_count', 'error_count'] as const;
export const spanSortFields = ['start_time', 'latency', 'cost', 'tokens'] as const;
export type TraceSortField = (typeof traceSortFields)[number];
export type SpanSortField = (typeof spanSortFields)[number];
export type SortDirection = 'asc' | 'desc';

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface Page<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 1000;

// Sort keys never null (a missing cost or token count sorts as -1), so keyset comparisons hold.
const traceSortSql: Record<TraceSortField, string> = {
  start_time: 't."startTime"',
  latency: 't."latency"',
  cost: 'COALESCE(t."cost", -1)',
  tokens: 'COALESCE(t."totalTokens", -1)',
  span_count: 't."spanCount"',
  error_count: 't."errorCount"',
};
const spanSortSql: Record<SpanSortField, string> = {
  start_time: 's."startTimeUnixNano"',
  latency: 's."latency"',
  cost: 'COALESCE(s."cost", -1)',
  tokens: 'COALESCE(s."totalTokens", -1)',
};

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

class Where {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];
  add(sql: string, ...params: unknown[]) {
    this.parts.push(sql);
    this.params.push(...params);
  }
  get sql() {
    return this.parts.join(' AND ');
  }
}

function modelCondition(sql: BulkSql, column: string, model: string, where: Where) {
  where.add(`(${column} = ? OR ${column} ${sql.like} ? ESCAPE '\\')`, model, `${likeEscape(model)}-%`);
}

/** Text in a span's inputs or outputs (their JSON text), ignoring ASCII case. */
function textCondition(sql: BulkSql, alias: string, text: string, where: Where) {
  const pattern = `%${likeEscape(text)}%`;
  const matches = (column: string) => `${sql.jsonAsText(`${alias}."${column}"`)} ${sql.like} ? ESCAPE '\\'`;
  where.add(`(${matches('inputs')} OR ${matches('outputs')})`, pattern, pattern);
}

function commonConditions(sql: BulkSql, alias: string, filter: SearchFilter, where: Where) {
  const c = (column: string) => `${alias}."${column}"`;
  if (filter.startedAfter) where.add(`${c('startTime')} >= ?`, filter.startedAfter);
  if (filter.startedBefore) where.add(`${c('startTime')} <= ?`, filter.startedBefore);
  if (filter.nameContains) where.add(`${c('name')} ${sql.like} ? ESCAPE '\\'`, `%${likeEscape(filter.nameContains)}%`);
  if (filter.spanKinds?.length) where.add(`${c('spanKind')} IN (${filter.spanKinds.map(() => '?').join(', ')})`, ...filter.spanKinds);
  if (filter.statuses?.length) where.add(`${c('statusCode')} IN (${filter.statuses.map(() => '?').join(', ')})`, ...filter.statuses);
  for (const [key, column] of [
    ['userId', 'userId'],
    ['sessionId', 'sessionId'],
    ['environment', 'environment'],
    ['appId', 'appId'],
    ['variantId', 'variantId'],
    ['variantName', 'variantName'],
  ] as const) {
    if (filter[key] !== undefined) where.add(`${c(column)} = ?`, filter[key]);
  }
  if (filter.environment === undefined && !filter.includeEvaluations) where.add(`${c('environment')} ${sql.isNot} ?`, EVALUATION_ENVIRONMENT);
  if (filter.minCost !== undefined) where.add(`${c('cost')} >= ?`, filter.minCost);
  if (filter.maxCost !== undefined) where.add(`${c('cost')} <= ?`, filter.maxCost);
  if (filter.minLatency !== undefined) where.add(`${c('latency')} >= ?`, filter.minLatency);
  if (filter.maxLatency !== undefined) where.add(`${c('latency')} <= ?`, filter.maxLatency);
}

function traceWhere(ctx: RequestContext, filter: SearchFilter): Where {
  const where = new Where();
  where.add('t."projectId" = ?', ctx.projectId);
  commonConditions(ctx.sql, 't', filter, where);
  if (filter.model !== undefined || filter.text !== undefined) {
    const inner = new Where();
    inner.add('s."projectId" = t."projectId" AND s."traceId" = t."traceId"');
    // PostgreSQL: only the partitions of the trace's time (docs/database.md#span-partitions).
    if (ctx.sql.provider === 'postgresql') inner.add('s."startTime" >= t."startTime" AND s."startTime" <= t."endTime"');
    if (filter.model !== undefined) modelCondition(ctx.sql, 's."model"', filter.model, inner);
    if (filter.text !== undefined) textCondition(ctx.sql, 's', filter.text, inner);
    where.add(`EXISTS (SELECT 1 FROM "Span" AS s WHERE ${inner.sql})`, ...inner.params);
  }
  return where;
}

function spanWhere(ctx: RequestContext, filter: SearchFilter): Where {
  const where = new Where();
  where.add('s."projectId" = ?', ctx.projectId);
  if (filter.traceId !== undefined) where.add('s."traceId" = ?', filter.traceId);
  commonConditions(ctx.sql, 's', filter, where);
  if (filter.model !== undefined) modelCondition(ctx.sql, 's."model"', filter.model, where);
  if (filter.text !== undefined) textCondition(ctx.sql, 's', filter.text, where);
  return where;
}

// ---------------------------------------------------------------------------------------------
// Cursors: the sort key and the row's key, opaque to clients.

type Key = [sort: unknown, ...ids: string[]];

function encodeCursor(key: Key): string {
  const [sort, ...ids] = key;
  const tagged =
    sort instanceof Date ? ['d', sort.toISOString()] : typeof sort === 'bigint' ? ['b', sort.toString()] : typeof sort === 'string' ? ['s', sort] : ['n', sort];
  return Buffer.from(JSON.stringify([...tagged, ...ids])).toString('base64url');
}

function decodeCursor(cursor: string, ids: number, argument: string): Key {
  const invalid = () => ValidationError.at(['query', argument], 'Invalid cursor', 'value_error');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 + ids) throw invalid();
  const [tag, value, ...rest] = parsed as unknown[];
  if (!rest.every((id) => typeof id === 'string')) throw invalid();
  if (tag === 'd' && typeof value === 'string' && !Number.isNaN(Date.parse(value))) return [new Date(value), ...rest];
  if (tag === 'b' && typeof value === 'string' && /^-?\d+$/.test(value)) return [BigInt(value), ...rest];
  if (tag === 'n' && typeof value === 'number') return [value, ...rest];
  if (tag === 's' && typeof value === 'string') return [value, ...rest];
  throw invalid();
}

/** `(k, id1, id2) < (?, ?, ?)` written out for SQLite versions without row values in all places. */
function keysetCondition(columns: string[], op: '<' | '>', values: unknown[], where: Where) {
  const ors: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < columns.length; i++) {
    const eqs = columns.slice(0, i).map((column) => `${column} = ?`);
    ors.push(`(${[...eqs, `${columns[i]} ${op} ?`].join(' AND ')})`);
    params.push(...values.slice(0, i), values[i]);
  }
  where.add(`(${ors.join(' OR ')})`, ...params);
}

function pageSize(args: PageArgs): { size: number; backward: boolean } {
  if (args.first != null && args.last != null) throw ValidationError.at(['query', 'last'], 'Give first or last, not both', 'value_error');
  const backward = args.last != null || (args.before != null && args.first == null);
  const size = (backward ? args.last : args.first) ?? DEFAULT_PAGE;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE) {
    throw ValidationError.at(['query', backward ? 'last' : 'first'], `Input should be between 0 and ${MAX_PAGE}`, 'less_than_equal');
  }
  return { size, backward };
}

async function keysetPage<T extends Record<string, unknown>>(
  ctx: RequestContext,
  options: {
    table: string;
    alias: string;
    where: Where;
    sortSql: string;
    idColumns: string[];
    direction: SortDirection;
    args: PageArgs;
  },
): Promise<Page<T>> {
  const { size, backward } = pageSize(options.args);
  const { where, alias, idColumns } = options;
  const columns = [options.sortSql, ...idColumns.map((column) => `${alias}."${column}"`)];
  // Walking backward reverses the order; the page is put back in the asked order afterwards.
  const descending = (options.direction === 'desc') !== backward;
  const after = options.args.after != null ? decodeCursor(options.args.after, idColumns.length, 'after') : null;
  const before = options.args.before != null ? decodeCursor(options.args.before, idColumns.length, 'before') : null;
  const forwardOp = options.direction === 'desc' ? '<' : '>';
  const backwardOp = forwardOp === '<' ? '>' : '<';
  if (after) keysetCondition(columns, forwardOp, after, where);
  if (before) keysetCondition(columns, backwardOp, before, where);
  const order = columns.map((column) => `${column} ${descending ? 'DESC' : 'ASC'}`).join(', ');
  const rows = await ctx.sql.query<T & { __sort: unknown }>(
    ctx.db,
    `SELECT ${alias}.*, ${options.sortSql} AS "__sort" FROM "${options.table}" AS ${alias} WHERE ${where.sql} ORDER BY ${order} LIMIT ?`,
    [...where.params, size + 1],
  );
  const more = rows.length > size;
  const page = rows.slice(0, size);
  if (backward) page.reverse();
  const edges = page.map((row) => {
    const { __sort, ...node } = row;
    return { cursor: encodeCursor([__sort, ...idColumns.map((column) => String(row[column]))]), node: node as unknown as T };
  });
  return {
    edges,
    pageInfo: {
      hasNextPage: backward ? before !== null : more,
      hasPreviousPage: backward ? more : after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

// Raw rows come back as SQLite has them: integers that Prisma types as Int may be BigInt.
function traceRow(row: Record<string, unknown>): TraceRow {
  for (const key of ['spanCount', 'errorCount', 'promptTokens', 'completionTokens', 'totalTokens']) {
    if (typeof row[key] === 'bigint') row[key] = Number(row[key]);
  }
  return row as unknown as TraceRow;
}

function spanRow(row: Record<string, unknown>): SpanRow {
  for (const key of ['promptTokens', 'completionTokens', 'totalTokens', 'cachedTokens', 'variantRevision']) {
    if (typeof row[key] === 'bigint') row[key] = Number(row[key]);
  }
  for (const key of ['startTimeUnixNano', 'endTimeUnixNano']) {
    if (typeof row[key] === 'number') row[key] = BigInt(row[key]);
  }
  return row as unknown as SpanRow;
}

export async function searchTraces(
  ctx: RequestContext,
  filter: SearchFilter,
  sort: { field: TraceSortField; direction: SortDirection } = { field: 'start_time', direction: 'desc' },
  args: PageArgs = {},
): Promise<Page<TraceRow>> {
  const page = await keysetPage<Record<string, unknown>>(ctx, {
    table: 'Trace',
    alias: 't',
    where: traceWhere(ctx, filter),
    sortSql: traceSortSql[sort.field],
    idColumns: ['traceId'],
    direction: sort.direction,
    args,
  });
  return { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: traceRow(edge.node) })) };
}

export async function searchSpans(
  ctx: RequestContext,
  filter: SearchFilter,
  sort: { field: SpanSortField; direction: SortDirection } = { field: 'start_time', direction: 'desc' },
  args: PageArgs = {},
): Promise<Page<SpanRow>> {
  const page = await keysetPage<Record<string, unknown>>(ctx, {
    table: 'Span',
    alias: 's',
    where: spanWhere(ctx, filter),
    sortSql: spanSortSql[sort.field],
    idColumns: ['traceId', 'spanId'],
    direction: sort.direction,
    args,
  });
  return { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: spanRow(edge.node) })) };
}

// ---------------------------------------------------------------------------------------------
// Aggregates

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

async function metrics(ctx: RequestContext, table: string, alias: string, where: Where, errorSql: string): Promise<Metrics> {
  const [totals] = await ctx.sql.query<Record<string, number | bigint | null>>(
    ctx.db,
    `SELECT COUNT(*) AS "count", SUM(CASE WHEN ${errorSql} THEN 1 ELSE 0 END) AS "errors",
       ${costSumSql(`${alias}."cost"`, ctx.sql)} AS "cost", SUM(${alias}."promptTokens") AS "prompt", SUM(${alias}."completionTokens") AS "completion",
       SUM(${alias}."totalTokens") AS "total", AVG(${alias}."latency") AS "avg", MIN(${alias}."latency") AS "min", MAX(${alias}."latency") AS "max"
     FROM "${table}" AS ${alias} WHERE ${where.sql}`,
    where.params,
  );
  const num = (value: number | bigint | null | undefined) => (value === null || value === undefined ? null : Number(value));
  const count = num(totals.count) ?? 0;
  const errors = num(totals.errors) ?? 0;
  const latency: Metrics['latency'] = { avg: num(totals.avg), min: num(totals.min), max: num(totals.max), p50: null, p95: null, p99: null };
  if (count > 0) {
    for (const [name, p] of percentiles) {
      const offset = Math.max(0, Math.ceil(p * count) - 1);
      const [row] = await ctx.sql.query<{ latency: number }>(
        ctx.db,
        `SELECT ${alias}."latency" AS "latency" FROM "${table}" AS ${alias} WHERE ${where.sql} ORDER BY ${alias}."latency" LIMIT 1 OFFSET ?`,
        [...where.params, offset],
      );
      latency[name] = row ? Number(row.latency) : null;
    }
  }
  return {
    count,
    error_count: errors,
    error_rate: count > 0 ? errors / count : null,
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

/** One interval of `traceSeries`. */
export interface SeriesBucket {
  start: Date;
  end: Date;
  count: number;
  error_count: number;
  cost: number | null;
  avg_latency: number | null;
}

export const MAX_SERIES_BUCKETS = 200;

/**
 * The traces matching `filter` counted over `buckets` equal intervals of time (the chart over the
 * trace list, docs/ui.md#the-trace-list): from `startedAfter` (else the earliest match) to
 * `startedBefore` (else the latest). Two queries: the range, then one grouped scan.
 */
export async function traceSeries(ctx: RequestContext, filter: SearchFilter, buckets: number): Promise<SeriesBucket[]> {
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
  return Array.from({ length: buckets }, (_, i) => {
    const row = byBucket.get(i);
    return {
      start: new Date(Math.round(from + i * width)),
      end: new Date(Math.round(from + (i + 1) * width)),
      count: row ? Number(row.count) : 0,
      error_count: row ? Number(row.errors) : 0,
      cost: row?.cost == null ? null : Number(row.cost),
      avg_latency: row?.latency == null ? null : Number(row.latency),
    };
  });
}
