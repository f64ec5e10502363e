// Test cases from production (docs/resources.md#test-cases-from-production): spans chosen by id,
// by their traces' ids (each trace's root span) or by a trace search's matches (capped), read
// through observability's operations, each mapped by JSONPaths into one row that keeps its source.
import { searchTraces } from '../observability/search/listings.js';
import { searchFilter } from '../observability/search/inputs.js';
import { traceMetrics } from '../observability/search/metrics.js';
import { getSpan, getTrace, listTraceSpans, type SpanRow } from '../observability/traces/trace-reads.js';
import { spanMetadata } from '../observability/traces/responses.js';
import type { RequestContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { RowsFromSpansInput, TestsetRowData } from './inputs.js';
import { readJsonPath } from '../shared/json-path.js';
import { addRows, getTestset, type NewRow, type TestsetRowRecord } from './operations.js';

export interface RowsFromSpans {
  /** How many spans were chosen: the ids given, or every trace the filter matches. */
  matched: number;
  /** Whether the filter matched more traces than `limit` took. */
  capped: boolean;
  /** The revision the rows were written as; null for a preview. */
  revision: number | null;
  /** The rows, with ids and positions once written (null in a preview). */
  rows: { id: string | null; position: number | null; data: TestsetRowData; sourceTraceId: string; sourceSpanId: string }[];
}

/** A trace's root span (its earliest span when the root never arrived). */
async function rootSpan(ctx: RequestContext, traceId: string): Promise<SpanRow> {
  const trace = await getTrace(ctx, traceId, { select: { rootSpanId: true } });
  if (trace.rootSpanId) return getSpan(ctx, trace.rootSpanId, traceId);
  const [first] = await listTraceSpans(ctx, traceId, { take: 1 });
  // A roll-up whose spans are gone (retention deleting them) names nothing to make a case of.
  if (!first) throw new NotFoundError('Trace', traceId);
  return first;
}

async function chosenSpans(ctx: RequestContext, input: RowsFromSpansInput): Promise<{ spans: SpanRow[]; matched: number }> {
  const spans: SpanRow[] = [];
  if (input.spans) {
    for (const { trace_id, span_id } of input.spans) spans.push(await getSpan(ctx, span_id, trace_id));
    return { spans, matched: spans.length };
  }
  if (input.trace_ids) {
    for (const traceId of new Set(input.trace_ids)) spans.push(await rootSpan(ctx, traceId));
    return { spans, matched: spans.length };
  }
  const filter = searchFilter(input.filter!, 'body');
  const page = await searchTraces(ctx, filter, undefined, { first: input.limit });
  for (const edge of page.edges) spans.push(await rootSpan(ctx, edge.node.traceId));
  const { count } = await traceMetrics(ctx, filter);
  return { spans, matched: count };
}

/** The row a span maps to: each column's JSONPath read from the span's parts; a path that finds nothing leaves its column out. */
function mapSpan(span: SpanRow, mapping: RowsFromSpansInput['mapping']): TestsetRowData {
  const document = { input: span.inputs, output: span.outputs, metadata: spanMetadata(span), attributes: span.attributes };
  const row: TestsetRowData = {};
  for (const [column, { segments }] of Object.entries(mapping)) {
    const value = readJsonPath(document, segments);
    if (value !== undefined) row[column] = value;
  }
  return row;
}

/** Maps the chosen spans into rows; unless `preview`, appends them to the test set as a new revision. */
export async function rowsFromSpans(ctx: RequestContext, testsetId: string, input: RowsFromSpansInput): Promise<RowsFromSpans> {
  await getTestset(ctx, testsetId, { select: { id: true } });
  const { spans, matched } = await chosenSpans(ctx, input);
  const capped = matched > spans.length;
  const mapped: NewRow[] = spans.map((span) => ({ data: mapSpan(span, input.mapping), source: { traceId: span.traceId, spanId: span.spanId } }));
  if (input.preview) {
    return {
      matched,
      capped,
      revision: null,
      rows: spans.map((span, index) => ({ id: null, position: null, data: mapped[index].data, sourceTraceId: span.traceId, sourceSpanId: span.spanId })),
    };
  }
  const { testset, rows } = await addRows(ctx, testsetId, mapped, 'rows_from_spans');
  return { matched, capped, revision: testset.revision, rows: rows.map((row: TestsetRowRecord) => rowOut(row)) };
}

function rowOut(row: TestsetRowRecord) {
  return { id: row.id, position: row.position, data: row.data as TestsetRowData, sourceTraceId: row.sourceTraceId!, sourceSpanId: row.sourceSpanId! };
}
