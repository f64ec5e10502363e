// What other domains and later ingestion work use of observability: the write path (OTLP and
// the evaluation runner map their spans to SpanRecords), and the span JSON of the contract.
export {
  writeSpans,
  spanKinds,
  spanStatuses,
  type JsonValue,
  type SpanKind,
  type SpanRecord,
  type SpanStatus,
  type WriteSummary,
} from './ingest.js';
export { spanJson, spanTreeJson, stringifySpanTree, spanJsonSelect, type SpanJson, type SpanJsonSource } from './shape.js';
export { getTrace, getTraceTree, getSpan, getSpanJson, traceSpansLoader } from './read.js';
export { nanosToDate, parseIsoDateTime } from './time.js';
