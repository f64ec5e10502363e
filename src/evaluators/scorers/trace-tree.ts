// The `trace` a version 2 code evaluator gets (docs/evaluators.md#custom-code):
// the case's spans as a tree shaped like Agenta's, children under `spans` by name, each span's
// data and figures under `attributes.ag` beside the attributes it was sent with. Offline runs give
// the spans of the case's trace (Assay's call span, the app's own beneath it), online rules the
// target's.
import type { TraceSpanView } from './common.js';

/** A span as stored (a SpanRecord being written, or a Span row read back): what a view takes of it. */
export interface StoredSpanLike {
  traceId: string;
  spanId: string;
  parentSpanId?: string | null;
  name: string;
  spanKind: string;
  statusCode: string;
  statusMessage?: string | null;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  inputs?: unknown;
  outputs?: unknown;
  internals?: unknown;
  attributes?: unknown;
  model?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  totalTokens?: number | null;
  cost?: number | null;
}

/** What evaluators read of a stored span. */
export function spanView(span: StoredSpanLike): TraceSpanView {
  return {
    id: span.spanId,
    parentId: span.parentSpanId ?? null,
    name: span.name,
    inputs: span.inputs ?? null,
    outputs: span.outputs ?? null,
    internals: span.internals ?? null,
    traceId: span.traceId,
    kind: span.spanKind,
    status: span.statusCode,
    statusMessage: span.statusMessage ?? null,
    startNs: span.startTimeUnixNano,
    endNs: span.endTimeUnixNano,
    attributes: span.attributes ?? {},
    model: span.model ?? null,
    tokens: { prompt: span.promptTokens ?? null, completion: span.completionTokens ?? null, total: span.totalTokens ?? null },
    cost: span.cost ?? null,
  };
}

interface Figures {
  duration: { total: number };
  tokens: { prompt: number; completion: number; total: number };
  costs: { total: number };
}

/** A span of the tree: Agenta's field names, children by name under `spans`. */
export interface TreeSpan {
  trace_id: string | null;
  span_id: string;
  parent_span_id: string | null;
  span_name: string;
  span_kind: string | null;
  status_code: string | null;
  status_message: string | null;
  start_time: string | null;
  end_time: string | null;
  attributes: Record<string, unknown>;
  spans?: Record<string, TreeSpan | TreeSpan[]>;
}

export interface TraceTree {
  /** The trace's id; null when the spans are of several traces (a session) or none. */
  trace_id: string | null;
  /** The roots (spans whose parent is not among them) by name. */
  spans: Record<string, TreeSpan | TreeSpan[]>;
}

const iso = (ns: bigint | undefined) => (ns === undefined ? null : new Date(Number(ns / 1_000_000n)).toISOString());
const durationMs = (view: TraceSpanView) => (view.startNs !== undefined && view.endNs !== undefined ? Number(view.endNs - view.startNs) / 1e6 : 0);
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function ownFigures(view: TraceSpanView): Figures {
  const prompt = view.tokens?.prompt ?? 0;
  const completion = view.tokens?.completion ?? 0;
  return {
    duration: { total: durationMs(view) },
    tokens: { prompt, completion, total: view.tokens?.total ?? prompt + completion },
    costs: { total: view.cost ?? 0 },
  };
}

/** Spans by name: one span as itself, a name several siblings share as their list in start order. */
function byName(spans: readonly TreeSpan[]): Record<string, TreeSpan | TreeSpan[]> {
  const named: Record<string, TreeSpan[]> = {};
  for (const span of spans) (named[span.span_name] ??= []).push(span);
  return Object.fromEntries(Object.entries(named).map(([name, list]) => [name, list.length === 1 ? list[0] : list]));
}

/**
 * The spans as a tree. Each span's `attributes` are its own (as sent) with `ag` set to
 * `{data: {inputs, outputs, internals}, metrics: {unit, acc}, meta: {request: {model}}}`: `unit`
 * its own duration (ms), tokens and cost, `acc` the tokens and costs of its subtree (its duration
 * is its own: it spans its children).
 */
export function traceTree(views: readonly TraceSpanView[]): TraceTree {
  const ordered = [...views].sort((a, b) => (a.startNs !== undefined && b.startNs !== undefined ? Number(a.startNs - b.startNs) : 0));
  const ids = new Set(ordered.map((view) => view.id));
  const children = new Map<string, TraceSpanView[]>();
  const roots: TraceSpanView[] = [];
  for (const view of ordered) {
    if (view.parentId !== null && view.parentId !== view.id && ids.has(view.parentId)) {
      const list = children.get(view.parentId) ?? [];
      list.push(view);
      children.set(view.parentId, list);
    } else roots.push(view);
  }
  const seen = new Set<string>();
  const build = (view: TraceSpanView): { span: TreeSpan; acc: Figures } => {
    seen.add(view.id);
    const unit = ownFigures(view);
    const acc: Figures = structuredClone(unit);
    // A span reached twice (a cycle of parent ids) is not followed again.
    const kids = (children.get(view.id) ?? []).filter((child) => !seen.has(child.id)).map(build);
    for (const kid of kids) {
      acc.tokens.prompt += kid.acc.tokens.prompt;
      acc.tokens.completion += kid.acc.tokens.completion;
      acc.tokens.total += kid.acc.tokens.total;
      acc.costs.total += kid.acc.costs.total;
    }
    const own = isObject(view.attributes) ? view.attributes : {};
    const span: TreeSpan = {
      trace_id: view.traceId ?? null,
      span_id: view.id,
      parent_span_id: view.parentId,
      span_name: view.name,
      span_kind: view.kind ?? null,
      status_code: view.status ?? null,
      status_message: view.statusMessage ?? null,
      start_time: iso(view.startNs),
      end_time: iso(view.endNs),
      attributes: {
        ...own,
        ag: {
          data: { inputs: view.inputs ?? null, outputs: view.outputs ?? null, internals: view.internals ?? null },
          metrics: { unit, acc },
          meta: { request: { model: view.model ?? null } },
        },
      },
    };
    if (kids.length > 0) span.spans = byName(kids.map((kid) => kid.span));
    return { span, acc };
  };
  const traceIds = new Set(ordered.map((view) => view.traceId));
  return {
    trace_id: traceIds.size === 1 ? ([...traceIds][0] ?? null) : null,
    spans: byName(roots.map((root) => build(root).span)),
  };
}
