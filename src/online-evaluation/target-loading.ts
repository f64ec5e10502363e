// What a rule's target is for mappings and evaluators (docs/online-evaluation.md#mapping): a span,
// a trace or a session's traces read as one document, with the spans judges may look at.
import { spanView, type TraceSpanView } from '../evaluators/scoring.js';
import { getSpan, getTrace, listSessionTraces, listTraceSpans } from '../observability/traces/trace-reads.js';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import type { RuleTarget } from './inputs.js';
import type { TargetDocument } from './mapping.js';
import type { JobRow } from './operations.js';

/** What a target is for mappings and evaluators; null when it is gone. */
export async function loadTarget(
  ctx: RequestContext,
  target: RuleTarget,
  ids: Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'>,
): Promise<{ document: TargetDocument; views: TraceSpanView[]; lastArrival: Date } | null> {
  if (target === 'span') {
    const span = await getSpan(ctx, ids.spanId!, ids.traceId!).catch(missingAsNull);
    if (!span) return null;
    return {
      document: { input: span.inputs, output: span.outputs, metadata: span.internals, attributes: span.attributes, spans: [spanDoc(span)], traces: [] },
      views: [spanView(span)],
      lastArrival: span.createdAt,
    };
  }
  const traces =
    target === 'trace'
      ? [await getTrace(ctx, ids.traceId!).catch(missingAsNull)].filter((trace) => trace !== null)
      : await listSessionTraces(ctx, ids.sessionId!, 200);
  if (traces.length === 0) return null;
  const spans = (await Promise.all(traces.map((trace) => listTraceSpans(ctx, trace.traceId)))).flat();
  const roots = traces.map(
    (trace) => spans.find((span) => span.traceId === trace.traceId && span.parentSpanId === null) ?? spans.find((span) => span.traceId === trace.traceId),
  );
  const transcript = traces.map((trace, index) => ({ trace_id: trace.traceId, input: roots[index]?.inputs ?? null, output: roots[index]?.outputs ?? null }));
  const first = roots[0];
  const last = roots[roots.length - 1];
  return {
    document: {
      input: target === 'trace' ? (first?.inputs ?? null) : transcript.map((turn) => turn.input),
      output: target === 'trace' ? (first?.outputs ?? null) : (last?.outputs ?? null),
      metadata: first?.internals ?? null,
      attributes: first?.attributes ?? null,
      spans: spans.map(spanDoc),
      traces: transcript,
    },
    views: spans.map(spanView),
    lastArrival: new Date(Math.max(...traces.map((trace) => trace.updatedAt.getTime()))),
  };
}

type SpanRowLite = Prisma.SpanGetPayload<object>;

function spanDoc(span: SpanRowLite) {
  return {
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    span_kind: span.spanKind,
    input: span.inputs,
    output: span.outputs,
    metadata: span.internals,
    attributes: span.attributes,
    model: span.model,
  };
}

/** A read's NotFoundError as null: the thing is gone. */
export function missingAsNull(error: unknown): null {
  if (error instanceof NotFoundError) return null;
  throw error;
}
