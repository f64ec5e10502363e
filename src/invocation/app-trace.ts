// The app's own trace in an endpoint's answer (docs/evaluations.md#the-apps-own-trace): Agenta's
// SDK answers v2 `{data, trace: {spans: [...]}}` (a flat list, each span naming its parent) or v3
// `{version, data, tree: {nodes: [...]}}` (nested nodes, children by name). Its spans are stored
// in the case's trace beneath Assay's span of the call, so RAG evaluators find the retriever's
// contexts there and the trace shows the whole story.
import type { JsonValue, SpanKind, SpanRecord, SpanStatus } from '../observability/ingestion/span-record.js';
import { spanKinds } from '../observability/ingestion/span-record.js';
import { parseIsoDateTime } from '../shared/time.js';
import { randomId } from './ids.js';

/** At most this many spans of one answer are kept; the rest are counted on the call's span. */
export const MAX_APP_SPANS = 1000;

/** One span of the app's trace, as the answer gave it. */
export interface AppSpan {
  /** The app's own id of the span (any text), and of its parent; null for a root. */
  id: string;
  parentId: string | null;
  name: string;
  kind: SpanKind;
  status: SpanStatus;
  statusMessage: string | null;
  startNs: bigint | null;
  endNs: bigint | null;
  inputs: JsonValue;
  outputs: JsonValue;
  internals: JsonValue;
  /** Figures the app reported (cost, tokens, latency), kept as attributes: Assay's span of the call carries the totals. */
  reported: { [key: string]: JsonValue };
}

type Json = { [key: string]: unknown };

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);
const json = (value: unknown): JsonValue => (value === undefined ? null : (value as JsonValue));

function nanos(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  // Agenta writes times without an offset, in UTC.
  const parsed = parseIsoDateTime(value);
  return 'error' in parsed ? null : parsed.nanos;
}

function kindOf(value: unknown): SpanKind {
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  if ((spanKinds as readonly string[]).includes(upper)) return upper as SpanKind;
  // v3 node types: workflow, task, tool, embedding, query (a retrieval), completion, chat, rerank.
  const byType: Record<string, SpanKind> = { TASK: 'CHAIN', QUERY: 'RETRIEVER', COMPLETION: 'LLM', CHAT: 'LLM', RERANK: 'RERANKER' };
  return byType[upper] ?? 'UNKNOWN';
}

function statusOf(value: unknown): { status: SpanStatus; message: string | null } {
  if (!isObject(value)) return { status: 'UNSET', message: null };
  const code = typeof value.code === 'string' ? value.code.replace(/^STATUS_CODE_/, '').toUpperCase() : 'UNSET';
  return { status: code === 'OK' || code === 'ERROR' ? code : 'UNSET', message: text(value.message) };
}

function reportedFigures(fields: Json): { [key: string]: JsonValue } {
  const figures: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== null) figures[`app.${key}`] = json(value);
  return figures;
}

/** v2: `trace.spans`, a flat list. */
function v2Spans(spans: unknown[]): AppSpan[] {
  return spans.filter(isObject).flatMap((span): AppSpan[] => {
    const id = text(span.id) ?? text(span.span_id);
    if (id === null) return [];
    const metadata = isObject(span.metadata) ? span.metadata : {};
    const { status, message } = statusOf(span.status);
    return [
      {
        id,
        parentId: text(span.parent_span_id),
        name: text(span.name) ?? 'span',
        kind: kindOf(span.spankind ?? span.span_kind),
        status,
        statusMessage: message,
        startNs: nanos(span.start_time),
        endNs: nanos(span.end_time),
        inputs: json(span.inputs),
        outputs: json(span.outputs),
        internals: json(span.internals),
        reported: reportedFigures({
          cost: span.cost ?? metadata.cost,
          latency: metadata.latency,
          tokens: span.tokens ?? span.token_consumption ?? metadata.usage,
        }),
      },
    ];
  });
}

/** v3: `tree.nodes`, nested; a node's children are `nodes`, by name (one node or a list of them). */
function v3Spans(roots: unknown[]): AppSpan[] {
  const spans: AppSpan[] = [];
  const visit = (node: unknown, parentId: string | null) => {
    if (!isObject(node) || spans.length >= MAX_APP_SPANS) return;
    const about = isObject(node.node) ? node.node : {};
    const id = text(about.id);
    if (id === null) return;
    const time = isObject(node.time) ? node.time : {};
    const data = isObject(node.data) ? node.data : {};
    const metrics = isObject(node.metrics) ? node.metrics : {};
    const { status, message } = statusOf(node.status);
    spans.push({
      id,
      parentId: text(isObject(node.parent) ? node.parent.id : null) ?? parentId,
      name: text(about.name) ?? 'node',
      kind: kindOf(about.type),
      status,
      statusMessage: message,
      startNs: nanos(time.start),
      endNs: nanos(time.end),
      inputs: json(data.inputs),
      outputs: json(data.outputs),
      internals: json(data.internals),
      reported: reportedFigures({ metrics: metrics }),
    });
    if (isObject(node.nodes)) for (const child of Object.values(node.nodes)) for (const one of [child].flat()) visit(one, id);
  };
  for (const root of roots) visit(root, null);
  return spans;
}

/** The spans an endpoint's answer carries (v2 or v3), at most MAX_APP_SPANS; none for other answers. */
export function readAppSpans(answer: Json): AppSpan[] {
  if (isObject(answer.trace) && Array.isArray(answer.trace.spans)) return v2Spans(answer.trace.spans).slice(0, MAX_APP_SPANS);
  if (isObject(answer.tree) && Array.isArray(answer.tree.nodes)) return v3Spans(answer.tree.nodes);
  return [];
}

/**
 * The app's spans as stored: in the call's trace, the app's roots (and spans whose parent the
 * answer does not hold) beneath the call's span, each with a new span id (the app's own is kept
 * as `app.span_id`). A span without times takes the call's.
 */
export function appSpanRecords(call: SpanRecord, spans: readonly AppSpan[]): SpanRecord[] {
  const ids = new Map(spans.map((span) => [span.id, randomId(8)]));
  return spans.map((span) => ({
    traceId: call.traceId,
    spanId: ids.get(span.id)!,
    parentSpanId: (span.parentId !== null ? ids.get(span.parentId) : undefined) ?? call.spanId,
    name: span.name,
    spanKind: span.kind,
    statusCode: span.status,
    statusMessage: span.statusMessage,
    startTimeUnixNano: span.startNs ?? call.startTimeUnixNano,
    endTimeUnixNano: span.endNs ?? span.startNs ?? call.endTimeUnixNano,
    inputs: span.inputs,
    outputs: span.outputs,
    internals: span.internals,
    environment: call.environment,
    appId: call.appId,
    variantId: call.variantId,
    variantName: call.variantName,
    variantRevision: call.variantRevision,
    attributes: { 'app.span_id': span.id, ...span.reported },
  }));
}
