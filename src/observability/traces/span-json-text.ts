// The span JSON of the contract written as text: a span tree of any depth (JSON.stringify would
// overflow the stack), and on SQLite the JSON made by the database itself, copied into the answer
// without building span objects (docs/observability.md#measurements). Field for field what
// responses.ts shapes.
import { Prisma } from '../../shared/db.js';
import { spanFigures, type SpanJson, type SpanUsageJson, type TraceTotals } from './responses.js';
import type { SpanIndex } from './span-tree.js';

/** Span levels below which JSON.stringify is safe (it recurses about three times per level). */
const NATIVE_STRINGIFY_DEPTH = 500;

/** Levels of a span tree, counted iteratively. */
function treeDepth(top: SpanJson): number {
  let deepest = 0;
  const stack: [SpanJson, number][] = [[top, 1]];
  while (stack.length > 0) {
    const [span, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (const child of span.children ?? []) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * JSON text of a span tree. JSON.stringify recurses and overflows the stack near 3,000 levels of
 * nesting, which a long agent loop can reach; such trees are written with an explicit stack,
 * each span's own fields stringified alone. Shallower trees take the native path, twice as fast.
 */
export function stringifySpanTree(top: SpanJson): string {
  if (treeDepth(top) <= NATIVE_STRINGIFY_DEPTH) return JSON.stringify(top);
  return stringifyDeepTree(top);
}

function stringifyDeepTree(top: SpanJson): string {
  return writeTree(
    top,
    (span) => span.children,
    (span) => {
      const { children: _children, ...fields } = span;
      // `fields` always has keys, so its text ends with "}" after at least one member.
      return JSON.stringify(fields).slice(0, -1);
    },
  );
}

/**
 * A tree as JSON text with an explicit stack (any depth): each node's own text up to its
 * `children` member (`opening`, without the closing brace), then its children in order. Null
 * children are written as null (not loaded), none as [].
 */
function writeTree<T>(top: T, childrenOf: (node: T) => readonly T[] | null, opening: (node: T) => string): string {
  const parts: string[] = [];
  const open: { children: readonly T[]; next: number }[] = [];
  const begin = (node: T) => {
    const children = childrenOf(node);
    if (children === null) {
      parts.push(opening(node), ',"children":null}');
      return;
    }
    parts.push(opening(node), ',"children":[');
    if (children.length === 0) parts.push(']}');
    else open.push({ children, next: 0 });
  };
  begin(top);
  while (open.length > 0) {
    const level = open[open.length - 1];
    if (level.next < level.children.length) {
      if (level.next > 0) parts.push(',');
      begin(level.children[level.next++]);
    } else {
      parts.push(']}');
      open.pop();
    }
  }
  return parts.join('');
}

/**
 * A span read for a JSON answer, its JSON made by SQLite (`spanTextColumns`): the tree fields, the
 * two floats, and the rest of the span's JSON as text in three pieces. The JSON columns are copied
 * into the answer as stored (they hold JSON.stringify's text) instead of being parsed and written
 * again; floats are written by JavaScript, as everywhere else in the API (SQLite would write 1.0
 * for 1 and 1.0e-07 for 1e-7). No more columns than these: each one costs every row its
 * conversion in Prisma, which dominates the read (docs/observability.md#measurements).
 */
export interface SpanTextRow {
  spanId: string;
  parentSpanId: string | null;
  startTimeUnixNano: bigint;
  latency: number;
  cost: number | null;
  /** `{"id":…,"status_message":…}`: the fields before `metadata`. */
  head: string;
  /** `{"usage":{…},"start_time":…,"end_time":…}`: `metadata` after cost and latency. */
  times: string;
  /** `{"trace_id":…,"config":…}`: the fields after `metadata`. */
  tail: string;
}

/** Times as the API writes them: ISO-8601 UTC with milliseconds, as Date.toISOString. */
const isoTime = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', s."${column}")`;

/** The columns of a SpanTextRow, for a query over `"Span" AS s`. Field for field the SpanJson of `spanJson`. */
export const spanTextColumns = Prisma.raw(`s."spanId", s."parentSpanId", s."startTimeUnixNano", s."latency", s."cost",
  json_object('id', s."spanId", 'name', s."name", 'project_id', s."projectId", 'parent_span_id', s."parentSpanId",
    'created_at', ${isoTime('startTime')},
    'variant', json_object('variant_id', s."variantId", 'variant_name', s."variantName", 'revision', s."variantRevision"),
    'environment', s."environment", 'spankind', s."spanKind", 'status', s."statusCode", 'status_message', s."statusMessage") AS "head",
  json_object('usage', json_object('prompt_tokens', s."promptTokens", 'completion_tokens', s."completionTokens", 'total_tokens', s."totalTokens"),
    'start_time', ${isoTime('startTime')}, 'end_time', ${isoTime('endTime')}) AS "times",
  json_object('trace_id', s."traceId", 'user_id', s."userId", 'session_id', s."sessionId", 'model', s."model",
    'content', json_object('inputs', json(s."inputs"), 'outputs', json(s."outputs"), 'internals', json(s."internals")),
    'config', json(s."config")) AS "tail"`);

const USAGE_OPENING = '{"usage":';

/**
 * `row` with the figures `spanFigures` gives it: only the trace's root may need others than its
 * own, so only its `times` is taken apart (its usage object, as SQLite writes it, holds no brace).
 */
function rootFigures(row: SpanTextRow, trace: TraceTotals): { cost: number | null; times: string } {
  const usageEnd = row.times.indexOf('}') + 1;
  const own = JSON.parse(row.times.slice(USAGE_OPENING.length, usageEnd)) as SpanUsageJson;
  const { cost, usage } = spanFigures(
    { spanId: row.spanId, cost: row.cost, promptTokens: own.prompt_tokens, completionTokens: own.completion_tokens, totalTokens: own.total_tokens },
    trace,
  );
  return { cost, times: `${USAGE_OPENING}${JSON.stringify(usage)}${row.times.slice(usageEnd)}` };
}

/** A span's JSON text up to (without) its `children` member and closing brace; `trace` as for spanMetadata. */
function spanTextOpen(row: SpanTextRow, trace: TraceTotals | null | undefined): string {
  const { cost, times } = trace && trace.rootSpanId === row.spanId ? rootFigures(row, trace) : row;
  return `${row.head.slice(0, -1)},"metadata":{"cost":${JSON.stringify(cost)},"latency":${JSON.stringify(row.latency)},${times.slice(1)},${row.tail.slice(1, -1)}`;
}

/**
 * The JSON text of `top` with all its descendants nested in `children`, each level in start
 * order: the same text as `stringifySpanTree(spanTreeJson(…))` of the same spans, written with an
 * explicit stack (any depth) from the rows' pieces, without building span objects.
 */
export function stringifySpanTextTree<T extends SpanTextRow>(index: SpanIndex<T>, top: T, trace?: TraceTotals | null): string {
  return writeTree(
    top,
    (row) => index.childrenOf(row.spanId),
    (row) => spanTextOpen(row, trace),
  );
}
