// The span JSON of the contract (docs/contract.md 2.1), shared by the REST reads, the GraphQL
// sub-objects and any domain that shows spans (evaluation scenarios link to traces).
import { Prisma } from '../shared/db.js';
import { buildTree, type SpanIndex } from './tree.js';

/** The columns the span JSON reads; REST selects only these, leaving the raw attributes behind. */
export const spanJsonSelect = {
  projectId: true,
  traceId: true,
  spanId: true,
  parentSpanId: true,
  name: true,
  spanKind: true,
  statusCode: true,
  statusMessage: true,
  startTimeUnixNano: true,
  startTime: true,
  endTime: true,
  latency: true,
  inputs: true,
  outputs: true,
  internals: true,
  config: true,
  environment: true,
  userId: true,
  sessionId: true,
  model: true,
  variantId: true,
  variantName: true,
  variantRevision: true,
  promptTokens: true,
  completionTokens: true,
  totalTokens: true,
  cost: true,
} as const satisfies Prisma.SpanSelect;

export type SpanJsonSource = Prisma.SpanGetPayload<{ select: typeof spanJsonSelect }>;

export interface SpanVariantJson {
  variant_id: string | null;
  variant_name: string | null;
  revision: number | null;
}

export interface SpanUsageJson {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
}

export interface SpanMetadataJson {
  /** USD. */
  cost: number | null;
  /** Seconds. */
  latency: number;
  usage: SpanUsageJson;
  start_time: string;
  end_time: string;
}

export interface SpanContentJson {
  inputs: Prisma.JsonValue | null;
  outputs: Prisma.JsonValue | null;
  internals: Prisma.JsonValue | null;
}

export interface SpanJson {
  id: string;
  name: string;
  project_id: string;
  parent_span_id: string | null;
  created_at: string;
  variant: SpanVariantJson;
  environment: string | null;
  spankind: string;
  status: string;
  /** The status' message (an error's description), or null. */
  status_message: string | null;
  metadata: SpanMetadataJson;
  trace_id: string;
  user_id: string | null;
  session_id: string | null;
  /** The model that answered (else the one asked for), or null. */
  model: string | null;
  content: SpanContentJson;
  config: Prisma.JsonValue | null;
  /** The direct children in a tree answer (`[]` for a leaf); null when the span is read alone. */
  children: SpanJson[] | null;
}

export function spanVariant(span: Pick<SpanJsonSource, 'variantId' | 'variantName' | 'variantRevision'>): SpanVariantJson {
  return { variant_id: span.variantId, variant_name: span.variantName, revision: span.variantRevision };
}

export function spanUsage(span: Pick<SpanJsonSource, 'promptTokens' | 'completionTokens' | 'totalTokens'>): SpanUsageJson {
  return { prompt_tokens: span.promptTokens, completion_tokens: span.completionTokens, total_tokens: span.totalTokens };
}

/** A trace's sums, from its roll-up row (ingest.ts), which its root span shows where it reported none. */
export const traceTotalsSelect = {
  traceId: true,
  rootSpanId: true,
  cost: true,
  promptTokens: true,
  completionTokens: true,
  totalTokens: true,
} as const satisfies Prisma.TraceSelect;

export type TraceTotals = Prisma.TraceGetPayload<{ select: typeof traceTotalsSelect }>;

type OwnFigures = Pick<SpanJsonSource, 'spanId' | 'cost' | 'promptTokens' | 'completionTokens' | 'totalTokens'>;

/**
 * The cost and usage a span shows (docs/observability.md#cost-and-usage-in-a-tree): its own, as
 * stored. The trace's root (its roll-up's `rootSpanId`) that reported no cost shows the trace's
 * cost, and one that reported no token counts the trace's counts: those are the sums over every
 * other span then, so nothing is counted twice. A root that reported its own keeps them.
 */
function spanFigures(span: OwnFigures, trace: TraceTotals | null | undefined): { cost: number | null; usage: SpanUsageJson } {
  const totals = trace && trace.rootSpanId === span.spanId ? trace : null;
  const ownUsage = span.promptTokens !== null || span.completionTokens !== null || span.totalTokens !== null;
  const usage = ownUsage || totals === null ? span : totals;
  return {
    cost: span.cost ?? totals?.cost ?? null,
    usage: spanUsage(usage),
  };
}

/** `trace`: the span's trace totals, for when the span is the trace's root (`spanFigures`). */
export function spanMetadata(span: SpanJsonSource, trace?: TraceTotals | null): SpanMetadataJson {
  const { cost, usage } = spanFigures(span, trace);
  return {
    cost,
    latency: span.latency,
    usage,
    start_time: span.startTime.toISOString(),
    end_time: span.endTime.toISOString(),
  };
}

export function spanContent(span: Pick<SpanJsonSource, 'inputs' | 'outputs' | 'internals'>): SpanContentJson {
  return { inputs: span.inputs, outputs: span.outputs, internals: span.internals };
}

/** One span in the contract's shape; `children` as given (see SpanJson.children); `trace` as for spanMetadata. */
export function spanJson(span: SpanJsonSource, children: SpanJson[] | null = null, trace?: TraceTotals | null): SpanJson {
  return {
    id: span.spanId,
    name: span.name,
    project_id: span.projectId,
    parent_span_id: span.parentSpanId,
    created_at: span.startTime.toISOString(),
    variant: spanVariant(span),
    environment: span.environment,
    spankind: span.spanKind,
    status: span.statusCode,
    status_message: span.statusMessage,
    metadata: spanMetadata(span, trace),
    trace_id: span.traceId,
    user_id: span.userId,
    session_id: span.sessionId,
    model: span.model,
    content: spanContent(span),
    config: span.config,
    children,
  };
}

/** `top` with all its descendants nested in `children`, each level in start order; `trace` as for spanMetadata. */
export function spanTreeJson<T extends SpanJsonSource>(index: SpanIndex<T>, top: T, trace?: TraceTotals | null): SpanJson {
  return buildTree(index, top, (span, children: SpanJson[]) => spanJson(span, children, trace));
}

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
