// GraphQL types and queries of observability (docs/observability.md#graphql). Field names follow
// the span JSON of the contract; the tree fields (`children`, `parent`, `root`, `roots`) read the
// request's per-trace loader (read.ts), so a whole tree costs one query per trace however large it
// is.
import type { ArgBuilder } from '@pothos/core';
import type { RequestContext } from '../shared/context.js';
import { builder } from '../shared/graphql/builder.js';
import { EVALUATION_ENVIRONMENT, spanKinds, spanStatuses } from './ingest.js';
import { ingestLegacyTraceBody, type LegacyIngestAnswer } from './legacy.js';
import * as read from './read.js';
import { searchFilter, type SearchArgs } from './search-input.js';
import * as search from './search.js';
import type { SearchFilter } from './search.js';
import {
  spanContent,
  spanMetadata,
  spanUsage,
  spanVariant,
  type SpanContentJson,
  type TraceTotals,
  type SpanMetadataJson,
  type SpanUsageJson,
  type SpanVariantJson,
} from './shape.js';

const SpanKind = builder.enumType('SpanKind', { values: spanKinds });
const SpanStatusCode = builder.enumType('SpanStatusCode', { values: spanStatuses });

const TokenUsage = builder.objectRef<SpanUsageJson>('TokenUsage').implement({
  fields: (t) => ({
    prompt_tokens: t.exposeInt('prompt_tokens', { nullable: true }),
    completion_tokens: t.exposeInt('completion_tokens', { nullable: true }),
    total_tokens: t.exposeInt('total_tokens', { nullable: true }),
  }),
});

const SpanVariant = builder.objectRef<SpanVariantJson>('SpanVariant').implement({
  fields: (t) => ({
    variant_id: t.exposeString('variant_id', { nullable: true }),
    variant_name: t.exposeString('variant_name', { nullable: true }),
    revision: t.exposeInt('revision', { nullable: true }),
  }),
});

const SpanMetadata = builder.objectRef<SpanMetadataJson>('SpanMetadata').implement({
  fields: (t) => ({
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    usage: t.expose('usage', { type: TokenUsage }),
    start_time: t.expose('start_time', { type: 'DateTime' }),
    end_time: t.expose('end_time', { type: 'DateTime' }),
  }),
});

const SpanContent = builder.objectRef<SpanContentJson>('SpanContent').implement({
  fields: (t) => ({
    inputs: t.expose('inputs', { type: 'JSON', nullable: true }),
    outputs: t.expose('outputs', { type: 'JSON', nullable: true }),
    internals: t.expose('internals', { type: 'JSON', nullable: true }),
  }),
});

const Span = builder.prismaObject('Span', {
  fields: (t) => ({
    id: t.exposeID('spanId', { description: 'The span id the client sent; unique within its trace.' }),
    trace_id: t.exposeID('traceId'),
    parent_span_id: t.exposeID('parentSpanId', { nullable: true }),
    project_id: t.exposeID('projectId'),
    name: t.exposeString('name'),
    spankind: t.field({ type: SpanKind, resolve: (span) => span.spanKind as (typeof spanKinds)[number] }),
    status: t.field({ type: SpanStatusCode, resolve: (span) => span.statusCode as (typeof spanStatuses)[number] }),
    status_message: t.exposeString('statusMessage', { nullable: true }),
    start_time: t.expose('startTime', { type: 'DateTime' }),
    end_time: t.expose('endTime', { type: 'DateTime' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    content: t.field({ type: SpanContent, resolve: spanContent }),
    metadata: t.field({
      type: SpanMetadata,
      description: "The span's own cost and usage; the trace's root shows the trace's sums where it reported none (docs/observability.md).",
      resolve: async (span, _args, ctx) => spanMetadata(span, await read.traceTotalsLoader(ctx).load(span.traceId)),
    }),
    config: t.expose('config', { type: 'JSON', nullable: true }),
    variant: t.field({ type: SpanVariant, resolve: spanVariant }),
    environment: t.exposeString('environment', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true }),
    session_id: t.exposeString('sessionId', { nullable: true }),
    app_id: t.exposeString('appId', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    cached_tokens: t.exposeInt('cachedTokens', { nullable: true, description: 'Prompt tokens read from the provider cache (part of prompt_tokens).' }),
    cost_source: t.exposeString('costSource', {
      nullable: true,
      description: '"reported" (sent by the client), "computed" (token usage × price table), null (no cost known).',
    }),
    attributes: t.expose('attributes', { type: 'JSON', description: 'The attributes the client sent, unchanged.' }),
    events: t.expose('events', { type: 'JSON', nullable: true }),
    links: t.expose('links', { type: 'JSON', nullable: true }),
    resource: t.expose('resource', { type: 'JSON', nullable: true }),
    scope: t.expose('scope', { type: 'JSON', nullable: true }),
  }),
});

// The tree fields refer to Span itself, so they are added once the type exists.
builder.prismaObjectFields(Span, (t) => ({
  child_spans: t.prismaConnection({
    type: 'Span',
    cursor: 'projectId_traceId_spanId',
    description: 'Direct children a page at a time, in start order: for spans with very many children.',
    resolve: (query, span, _args, ctx) => read.listChildSpans(ctx, span, query),
  }),
  children: t.field({
    type: [Span],
    description: 'Direct children, in start order.',
    resolve: async (span, _args, ctx) => [...(await read.traceSpansLoader(ctx).load(span.traceId)).childrenOf(span.spanId)],
  }),
  parent: t.field({
    type: Span,
    nullable: true,
    description: 'Null for a top-level span, including one whose parent never arrived.',
    resolve: async (span, _args, ctx) =>
      span.parentSpanId === null || span.parentSpanId === span.spanId
        ? null
        : ((await read.traceSpansLoader(ctx).load(span.traceId)).byId.get(span.parentSpanId) ?? null),
  }),
}));

/**
 * A trace's indexed spans, for `root` and `roots`. The trace row at hand holds the sums its root's
 * `metadata` may show, so the request's totals loader gets them without a query of its own.
 */
function traceSpans(ctx: RequestContext, trace: TraceTotals) {
  read.traceTotalsLoader(ctx).prime(trace.traceId, trace);
  return read.traceSpansLoader(ctx).load(trace.traceId);
}

const TraceRef = builder.prismaObject('Trace', {
  fields: (t) => ({
    trace_id: t.exposeID('traceId'),
    project_id: t.exposeID('projectId'),
    name: t.exposeString('name', { nullable: true, description: "The root span's name." }),
    start_time: t.expose('startTime', { type: 'DateTime', description: 'Start of the earliest span.' }),
    end_time: t.expose('endTime', { type: 'DateTime', description: 'End of the latest span.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds from start_time to end_time.' }),
    span_count: t.exposeInt('spanCount'),
    error_count: t.exposeInt('errorCount', { description: 'Spans with status ERROR.' }),
    tokens: t.field({ type: TokenUsage, description: 'Sums over all spans.', resolve: spanUsage }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD, summed over all spans.' }),
    spankind: t.field({
      type: SpanKind,
      nullable: true,
      description: "The root span's kind.",
      resolve: (trace) => trace.spanKind as (typeof spanKinds)[number] | null,
    }),
    status: t.field({
      type: SpanStatusCode,
      nullable: true,
      description: "ERROR when any span failed, else the root span's status.",
      resolve: (trace) => trace.statusCode as (typeof spanStatuses)[number] | null,
    }),
    environment: t.exposeString('environment', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true }),
    session_id: t.exposeString('sessionId', { nullable: true }),
    app_id: t.exposeString('appId', { nullable: true }),
    variant_id: t.exposeString('variantId', { nullable: true }),
    variant_name: t.exposeString('variantName', { nullable: true }),
    root: t.field({
      type: Span,
      nullable: true,
      description: 'The earliest top-level span, with its descendants under `children`.',
      resolve: async (trace, _args, ctx) => (await traceSpans(ctx, trace)).roots[0] ?? null,
    }),
    roots: t.field({
      type: [Span],
      description: 'Every top-level span (several when a parent never arrived), in start order.',
      resolve: async (trace, _args, ctx) => [...(await traceSpans(ctx, trace)).roots],
    }),
    spans: t.prismaConnection({
      type: 'Span',
      cursor: 'projectId_traceId_spanId',
      description: 'All spans of the trace, flat, in start order.',
      resolve: (query, trace, _args, ctx) => read.listTraceSpans(ctx, trace.traceId, query),
    }),
  }),
});

const TraceSortField = builder.enumType('TraceSortField', { values: search.traceSortFields });
const SpanSortField = builder.enumType('SpanSortField', { values: search.spanSortFields });
const SortDirection = builder.enumType('SortDirection', { values: ['asc', 'desc'] as const });

const LatencyMetrics = builder.objectRef<search.Metrics['latency']>('LatencyMetrics').implement({
  description: 'Seconds; percentiles are nearest-rank.',
  fields: (t) => ({
    avg: t.exposeFloat('avg', { nullable: true }),
    min: t.exposeFloat('min', { nullable: true }),
    max: t.exposeFloat('max', { nullable: true }),
    p50: t.exposeFloat('p50', { nullable: true }),
    p95: t.exposeFloat('p95', { nullable: true }),
    p99: t.exposeFloat('p99', { nullable: true }),
  }),
});

const Metrics = builder.objectRef<search.Metrics>('ObservabilityMetrics').implement({
  fields: (t) => ({
    count: t.exposeInt('count'),
    error_count: t.exposeInt('error_count'),
    error_rate: t.exposeFloat('error_rate', { nullable: true, description: 'error_count / count; null when count is 0.' }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD.' }),
    prompt_tokens: t.exposeInt('prompt_tokens', { nullable: true }),
    completion_tokens: t.exposeInt('completion_tokens', { nullable: true }),
    total_tokens: t.exposeInt('total_tokens', { nullable: true }),
    latency: t.expose('latency', { type: LatencyMetrics }),
  }),
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

// The filters of traces, spans and their metrics (SearchFilter in search.ts).
function searchArgs(t: { arg: ArgBuilder<BuilderTypes> }) {
  return {
    started_after: t.arg({ type: 'DateTime', description: 'Started at or after this time.' }),
    started_before: t.arg({ type: 'DateTime', description: 'Started at or before this time.' }),
    name_contains: t.arg.string({ description: "Part of the name (traces: the root span's), ignoring ASCII case." }),
    spankind: t.arg({ type: [SpanKind], description: "Any of these kinds (traces: the root span's)." }),
    status: t.arg({ type: [SpanStatusCode], description: 'Any of these statuses (traces: ERROR when any span failed).' }),
    user_id: t.arg.string(),
    session_id: t.arg.string(),
    environment: t.arg.string(),
    app_id: t.arg.string(),
    variant_id: t.arg.string(),
    variant_name: t.arg.string(),
    model: t.arg.string({ description: 'A model or its family ("gpt-4o" matches "gpt-4o-2024-08-06"); traces: any span.' }),
    text: t.arg.string({ description: 'Text in the inputs or outputs (traces: of any span), ignoring ASCII case.' }),
    min_cost: t.arg.float({ description: 'USD.' }),
    max_cost: t.arg.float({ description: 'USD.' }),
    min_latency: t.arg.float({ description: 'Seconds.' }),
    max_latency: t.arg.float({ description: 'Seconds.' }),
    includeEvaluations: t.arg.boolean({
      description: `Also the traces and spans of Assay's own evaluation calls (environment "${EVALUATION_ENVIRONMENT}"), left out unless this is true or \`environment\` names theirs.`,
    }),
  } as const;
}

/** The SearchFilter of a search's arguments (the GraphQL spelling of the include flag mapped to the shared one). */
function filterOf(args: object, traceId?: string | number | null): SearchFilter {
  const { includeEvaluations, ...rest } = args as SearchArgs & { includeEvaluations?: boolean | null };
  return searchFilter({
    ...rest,
    include_evaluations: includeEvaluations,
    ...(traceId !== undefined ? { trace_id: traceId === null ? null : String(traceId) } : {}),
  });
}

builder.queryFields((t) => ({
  trace: t.prismaField({
    type: 'Trace',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => read.getTrace(ctx, String(args.id), query),
  }),
  span: t.prismaField({
    type: 'Span',
    nullable: true,
    description: 'A span by id; `trace_id` picks one when the id exists in several traces (else the latest-starting).',
    args: { id: t.arg.id({ required: true }), trace_id: t.arg.id() },
    resolve: (_query, _root, args, ctx) => read.getSpan(ctx, String(args.id), args.trace_id == null ? undefined : String(args.trace_id)),
  }),
  traces: t.connection({
    type: TraceRef,
    description: 'Traces matching every filter given, newest first unless `sort_by` says otherwise.',
    args: { ...searchArgs(t), sort_by: t.arg({ type: TraceSortField }), sort_direction: t.arg({ type: SortDirection }) },
    resolve: (_root, args, ctx) =>
      search.searchTraces(ctx, filterOf(args), { field: args.sort_by ?? 'start_time', direction: args.sort_direction ?? 'desc' }, args),
  }),
  spans: t.connection({
    type: Span,
    description: 'Spans of all traces matching every filter given, newest first unless `sort_by` says otherwise.',
    args: { ...searchArgs(t), trace_id: t.arg.id(), sort_by: t.arg({ type: SpanSortField }), sort_direction: t.arg({ type: SortDirection }) },
    resolve: (_root, args, ctx) =>
      search.searchSpans(ctx, filterOf(args, args.trace_id), { field: args.sort_by ?? 'start_time', direction: args.sort_direction ?? 'desc' }, args),
  }),
  trace_metrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the traces matching the filters.',
    args: searchArgs(t),
    resolve: (_root, args, ctx) => search.traceMetrics(ctx, filterOf(args)),
  }),
  span_metrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the spans matching the filters.',
    args: { ...searchArgs(t), trace_id: t.arg.id() },
    resolve: (_root, args, ctx) => search.spanMetrics(ctx, filterOf(args, args.trace_id)),
  }),
}));

const IngestedTrace = builder.objectRef<LegacyIngestAnswer>('IngestedTrace').implement({
  fields: (t) => ({
    trace_id: t.exposeID('trace_id'),
    spans: t.exposeInt('spans', { description: 'Spans stored (a span id sent twice counts once).' }),
  }),
});

builder.mutationField('ingestTrace', (t) =>
  t.field({
    type: IngestedTrace,
    description: 'Stores spans as POST /observability/trace does; `input` is that body, `{trace, spans: […]}`.',
    // Ingestion, not a write: it needs the ingest scope, as the REST path does (docs/access.md#scopes).
    extensions: { scope: 'ingest' },
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, ctx) => ingestLegacyTraceBody(ctx, args.input),
  }),
);
