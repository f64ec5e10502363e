// What a rule's target is for mappings and evaluators (docs/online-evaluation.md#mapping): a span,
// a trace or a session's traces read as one document, with the spans judges may look at.
import { spanView, type TraceSpanView } from '../evaluators/scoring.js';
import { getSpan, getTrace, getTraces, listSessionTraces, listTracesSpans, spansByKeys } from '../observability/traces/trace-reads.js';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import type { RuleTarget } from './inputs.js';
import type { TargetDocument } from './mapping.js';
import type { JobRow } from './operations.js';

/** A target read: its document, the spans judges may look at, and its last arrival (delays). */
export interface LoadedTarget {
  document: TargetDocument;
  views: TraceSpanView[];
  lastArrival: Date;
}

type Ids = Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'>;

/** What a target is for mappings and evaluators; null when it is gone. */
export async function loadTarget(ctx: RequestContext, target: RuleTarget, ids: Ids): Promise<LoadedTarget | null> {
  if (target === 'span') {
    const span = await getSpan(ctx, ids.spanId!, ids.traceId!).catch(missingAsNull);
    return span ? spanTarget(span) : null;
  }
  const traces =
    target === 'trace'
      ? [await getTrace(ctx, ids.traceId!).catch(missingAsNull)].filter((trace) => trace !== null)
      : await listSessionTraces(ctx, ids.sessionId!, 200);
  return tracesTarget(
    target,
    traces,
    await listTracesSpans(
      ctx,
      traces.map((trace) => trace.traceId),
    ),
  );
}

/**
 * The targets of a batch of jobs of one project (docs/online-evaluation.md#jobs): spans in one
 * query, traces in one for the traces and one for their spans; sessions one at a time. Answers
 * each target by the index of its job in `jobs`, null when it is gone.
 */
export async function loadTargets(ctx: RequestContext, jobs: readonly (Ids & { targetType: string })[]): Promise<(LoadedTarget | null)[]> {
  const found: (LoadedTarget | null)[] = new Array<LoadedTarget | null>(jobs.length).fill(null);
  const spanJobs = jobs.flatMap((job, index) => (job.targetType === 'span' ? [index] : []));
  if (spanJobs.length > 0) {
    const spans = new Map<string, SpanRowLite>();
    for (const span of await spansByKeys(
      ctx,
      spanJobs.map((index) => ({ traceId: jobs[index].traceId!, spanId: jobs[index].spanId! })),
    )) {
      const key = `${span.traceId}/${span.spanId}`;
      // A span id found twice in a trace resolves to the one that started last, as getSpan reads it.
      const other = spans.get(key);
      if (!other || other.startTimeUnixNano < span.startTimeUnixNano) spans.set(key, span);
    }
    for (const index of spanJobs) {
      const span = spans.get(`${jobs[index].traceId}/${jobs[index].spanId}`);
      found[index] = span ? spanTarget(span) : null;
    }
  }
  const traceJobs = jobs.flatMap((job, index) => (job.targetType === 'trace' ? [index] : []));
  if (traceJobs.length > 0) {
    const traceIds = [...new Set(traceJobs.map((index) => jobs[index].traceId!))];
    const traces = await getTraces(ctx, traceIds);
    // The roll-ups just read bound the span read to their partitions (no range read of its own).
    const spans = await listTracesSpans(ctx, traceIds, traces);
    const byTrace = new Map<string, SpanRowLite[]>();
    for (const span of spans) {
      const list = byTrace.get(span.traceId);
      if (list) list.push(span);
      else byTrace.set(span.traceId, [span]);
    }
    const traceById = new Map(traces.map((trace) => [trace.traceId, trace]));
    for (const index of traceJobs) {
      const trace = traceById.get(jobs[index].traceId!);
      found[index] = trace ? tracesTarget('trace', [trace], byTrace.get(trace.traceId) ?? []) : null;
    }
  }
  for (const [index, job] of jobs.entries()) if (job.targetType === 'session') found[index] = await loadTarget(ctx, 'session', job);
  return found;
}

function spanTarget(span: SpanRowLite): LoadedTarget {
  return {
    document: { input: span.inputs, output: span.outputs, metadata: span.internals, attributes: span.attributes, spans: [spanDoc(span)], traces: [] },
    views: [spanView(span)],
    lastArrival: span.createdAt,
  };
}

/** A trace's or a session's document from its traces (in order) and their spans (in start order). */
function tracesTarget(target: RuleTarget, traces: readonly { traceId: string; updatedAt: Date }[], all: readonly SpanRowLite[]): LoadedTarget | null {
  if (traces.length === 0) return null;
  // A session's spans trace by trace, in the traces' order.
  const spans = traces.length === 1 ? all : traces.flatMap((trace) => all.filter((span) => span.traceId === trace.traceId));
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
