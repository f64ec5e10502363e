// Listing traces and spans that match a filter (docs/observability.md#search), shared by GraphQL
// and REST: sorting and keyset (cursor) pagination in raw SQL over the indexed columns.
import type { RequestContext } from '../../shared/context.js';
import { Prisma } from '../../shared/db.js';
import { ValidationError } from '../../shared/errors.js';
import type { SpanRow } from '../traces/trace-reads.js';
import { spanWhere, traceWhere, type SearchFilter, type Where } from './filters.js';

export type TraceRow = Prisma.TraceGetPayload<object>;

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

// ---------------------------------------------------------------------------------------------
// Cursors: the sort key and the row's key, opaque to clients.

type Key = [sort: unknown, ...ids: string[]];

export function encodeCursor(key: Key): string {
  const [sort, ...ids] = key;
  const tagged =
    sort instanceof Date ? ['d', sort.toISOString()] : typeof sort === 'bigint' ? ['b', sort.toString()] : typeof sort === 'string' ? ['s', sort] : ['n', sort];
  return Buffer.from(JSON.stringify([...tagged, ...ids])).toString('base64url');
}

export function decodeCursor(cursor: string, ids: number, argument: string): Key {
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
export function keysetCondition(columns: string[], op: '<' | '>', values: unknown[], where: Where) {
  const ors: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < columns.length; i++) {
    const eqs = columns.slice(0, i).map((column) => `${column} = ?`);
    ors.push(`(${[...eqs, `${columns[i]} ${op} ?`].join(' AND ')})`);
    params.push(...values.slice(0, i), values[i]);
  }
  where.add(`(${ors.join(' OR ')})`, ...params);
}

export function pageSize(args: PageArgs): { size: number; backward: boolean } {
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
  return pageOf(edges, { more, backward, after: after !== null, before: before !== null });
}

/**
 * A page of `edges` read in the asked order: `more` says a row lay past its end (in the direction
 * walked), `after` and `before` whether those cursors were given.
 */
export function pageOf<T>(edges: Page<T>['edges'], read: { more: boolean; backward: boolean; after: boolean; before: boolean }): Page<T> {
  return {
    edges,
    pageInfo: {
      hasNextPage: read.backward ? read.before : read.more,
      hasPreviousPage: read.backward ? read.more : read.after,
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
