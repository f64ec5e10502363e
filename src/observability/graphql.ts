// GraphQL types and queries of observability (docs/observability.md#graphql). Field names follow
// the span JSON of the contract; the tree fields (`children`, `parent`, `root`, `roots`) read the
// request's per-trace loader (read.ts), so a whole tree costs one query per trace however large it
// is.
import type { ArgBuilder } from '@pothos/core';
import { builder } from '../shared/graphql/builder.js';
import { databaseIdOf, globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { spanKinds, spanStatuses } from './ingest.js';
import { ingestLegacyTraceBody, type LegacyIngestAnswer } from './legacy.js';
import * as read from './read.js';
import { searchFilter } from './search-input.js';
import * as search from './search.js';
import {
  spanContent,
  spanMetadata,
  spanUsage,
  spanVariant,
  type SpanContentJson,
  type SpanMetadataJson,
  type SpanUsageJson,
  type SpanVariantJson,
} from './shape.js';

/** The trace and span ids a span's global id holds; a malformed one finds nothing. */
function spanKey(id: string): [string, string] {
  try {
    const key: unknown = JSON.parse(id);
    if (Array.isArray(key) && key.length === 2 && key.every((part) => typeof part === 'string')) return key as [string, string];
  } catch {
    // not JSON: no span has this id
  }
  return ['', ''];
}

const SpanKind = builder.enumType('SpanKind', { values: spanKinds });
const SpanStatusCode = builder.enumType('SpanStatusCode', { values: spanStatuses });

const TokenUsage = builder.objectRef<SpanUsageJson>('TokenUsage').implement({
  fields: (t) => ({
    promptTokens: t.exposeInt('prompt_tokens', { nullable: true }),
    completionTokens: t.exposeInt('completion_tokens', { nullable: true }),
    totalTokens: t.exposeInt('total_tokens', { nullable: true }),
  }),
});

const SpanVariant = builder.objectRef<SpanVariantJson>('SpanVariant').implement({
  fields: (t) => ({
    variantId: t.id({ nullable: true, resolve: (v) => globalId('Variant', v.variant_id) }),
    variantName: t.exposeString('variant_name', { nullable: true }),
    revision: t.exposeInt('revision', { nullable: true }),
  }),
});

const SpanMetadata = builder.objectRef<SpanMetadataJson>('SpanMetadata').implement({
  fields: (t) => ({
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    usage: t.expose('usage', { type: TokenUsage }),
    startTime: t.expose('start_time', { type: 'DateTime' }),
    endTime: t.expose('end_time', { type: 'DateTime' }),
  }),
});

const SpanContent = builder.objectRef<SpanContentJson>('SpanContent').implement({
  fields: (t) => ({
    inputs: t.expose('inputs', { type: 'JSON', nullable: true }),
    outputs: t.expose('outputs', { type: 'JSON', nullable: true }),
    internals: t.expose('internals', { type: 'JSON', nullable: true }),
  }),
});

// A span id is unique only within its trace: the global id holds both (as JSON, since ids sent as
// JSON may hold any character), so no client cache ever merges two spans (docs/graphql.md#ids).
const Span = builder.prismaNode('Span', {
  id: { resolve: (span) => JSON.stringify([span.traceId, span.spanId]) },
  nullable: true,
  findUnique: (id, ctx) => {
    const [traceId, spanId] = spanKey(id);
    return { projectId_traceId_spanId: { projectId: ctx.projectId, traceId, spanId } };
  },
  fields: (t) => ({
    spanId: t.exposeString('spanId', { description: 'The span id the client sent (OpenTelemetry: 16 hex digits); unique within its trace.' }),
    traceId: t.exposeString('traceId', { description: 'The trace id the client sent (OpenTelemetry: 32 hex digits).' }),
    parentSpanId: t.exposeString('parentSpanId', { nullable: true, description: "The parent's span id, as the client sent it." }),
    name: t.exposeString('name'),
    spanKind: t.field({ type: SpanKind, resolve: (span) => span.spanKind as (typeof spanKinds)[number] }),
    status: t.field({ type: SpanStatusCode, resolve: (span) => span.statusCode as (typeof spanStatuses)[number] }),
    statusMessage: t.exposeString('statusMessage', { nullable: true }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    content: t.field({ type: SpanContent, resolve: spanContent }),
    metadata: t.field({ type: SpanMetadata, resolve: spanMetadata }),
    config: t.expose('config', { type: 'JSON', nullable: true }),
    variant: t.field({ type: SpanVariant, resolve: spanVariant }),
    environment: t.exposeString('environment', { nullable: true }),
    userId: t.exposeString('userId', { nullable: true }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    appId: t.id({ nullable: true, description: 'The global id of the App the span names.', resolve: (span) => globalId('App', span.appId) }),
    model: t.exposeString('model', { nullable: true }),
    cachedTokens: t.exposeInt('cachedTokens', { nullable: true, description: 'Prompt tokens read from the provider cache (part of prompt_tokens).' }),
    costSource: t.exposeString('costSource', {
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

const SpanConnection = builder.connectionObject(
  { type: Span, name: 'SpanConnection', description: 'Spans, a page at a time.' },
  { description: 'A span and its cursor.' },
);

// The tree fields refer to Span itself, so they are added once the type exists.
builder.prismaObjectFields(Span, (t) => ({
  childSpans: t.prismaConnection(
    {
      type: 'Span',
      cursor: 'projectId_traceId_spanId',
      description: 'Direct children a page at a time, in start order: for spans with very many children.',
      resolve: (query, span, _args, ctx) =>
        ctx.db.span.findMany({
          ...query,
          where: { projectId: ctx.projectId, traceId: span.traceId, parentSpanId: span.spanId, NOT: { spanId: span.spanId } },
          orderBy: [{ startTimeUnixNano: 'asc' }, { spanId: 'asc' }],
        }),
    },
    SpanConnection,
  ),
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

const TraceRef = builder.prismaNode('Trace', {
  id: { resolve: (trace) => trace.traceId },
  nullable: true,
  findUnique: (traceId, ctx) => ({ projectId_traceId: { projectId: ctx.projectId, traceId } }),
  fields: (t) => ({
    traceId: t.exposeString('traceId', { description: 'The trace id the client sent (OpenTelemetry: 32 hex digits).' }),
    name: t.exposeString('name', { nullable: true, description: "The root span's name." }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'Start of the earliest span.' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'End of the latest span.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds from startTime to endTime.' }),
    spanCount: t.exposeInt('spanCount'),
    errorCount: t.exposeInt('errorCount', { description: 'Spans with status ERROR.' }),
    tokens: t.field({ type: TokenUsage, description: 'Sums over all spans.', resolve: spanUsage }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD, summed over all spans.' }),
    spanKind: t.field({
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
    userId: t.exposeString('userId', { nullable: true }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
    appId: t.id({ nullable: true, resolve: (trace) => globalId('App', trace.appId) }),
    variantId: t.id({ nullable: true, resolve: (trace) => globalId('Variant', trace.variantId) }),
    variantName: t.exposeString('variantName', { nullable: true }),
    root: t.field({
      type: Span,
      nullable: true,
      description: 'The earliest top-level span, with its descendants under `children`.',
      resolve: async (trace, _args, ctx) => (await read.traceSpansLoader(ctx).load(trace.traceId)).roots[0] ?? null,
    }),
    roots: t.field({
      type: [Span],
      description: 'Every top-level span (several when a parent never arrived), in start order.',
      resolve: async (trace, _args, ctx) => [...(await read.traceSpansLoader(ctx).load(trace.traceId)).roots],
    }),
    spans: t.prismaConnection(
      {
        type: 'Span',
        cursor: 'projectId_traceId_spanId',
        description: 'All spans of the trace, flat, in start order.',
        resolve: (query, trace, _args, ctx) => read.listTraceSpans(ctx, trace.traceId, query),
      },
      SpanConnection,
    ),
  }),
});

const TraceSortField = builder.enumType('TraceSortField', { values: upperCaseValues(search.traceSortFields) });
const SpanSortField = builder.enumType('SpanSortField', { values: upperCaseValues(search.spanSortFields) });
const SortDirection = builder.enumType('SortDirection', { values: upperCaseValues(['asc', 'desc']) });

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
    errorCount: t.exposeInt('error_count'),
    errorRate: t.exposeFloat('error_rate', { nullable: true, description: 'errorCount / count; null when count is 0.' }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD.' }),
    promptTokens: t.exposeInt('prompt_tokens', { nullable: true }),
    completionTokens: t.exposeInt('completion_tokens', { nullable: true }),
    totalTokens: t.exposeInt('total_tokens', { nullable: true }),
    latency: t.expose('latency', { type: LatencyMetrics }),
  }),
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

// The filters of traces, spans and their metrics (SearchFilter in search.ts).
function searchArgs(t: { arg: ArgBuilder<BuilderTypes> }) {
  return {
    startedAfter: t.arg({ type: 'DateTime', description: 'Started at or after this time.' }),
    startedBefore: t.arg({ type: 'DateTime', description: 'Started at or before this time.' }),
    nameContains: t.arg.string({ description: "Part of the name (traces: the root span's), ignoring ASCII case." }),
    spanKind: t.arg({ type: [SpanKind], description: "Any of these kinds (traces: the root span's)." }),
    status: t.arg({ type: [SpanStatusCode], description: 'Any of these statuses (traces: ERROR when any span failed).' }),
    userId: t.arg.string(),
    sessionId: t.arg.string(),
    environment: t.arg.string(),
    appId: t.arg.globalID({ description: 'The global id of an App.' }),
    variantId: t.arg.globalID({ description: 'The global id of a Variant.' }),
    variantName: t.arg.string(),
    model: t.arg.string({ description: 'A model or its family ("gpt-4o" matches "gpt-4o-2024-08-06"); traces: any span.' }),
    text: t.arg.string({ description: 'Text in the inputs or outputs (traces: of any span), ignoring ASCII case.' }),
    minCost: t.arg.float({ description: 'USD.' }),
    maxCost: t.arg.float({ description: 'USD.' }),
    minLatency: t.arg.float({ description: 'Seconds.' }),
    maxLatency: t.arg.float({ description: 'Seconds.' }),
  } as const;
}

const TraceConnection = builder.connectionObject(
  { type: TraceRef, name: 'TraceConnection', description: 'Traces, a page at a time.' },
  { description: 'A trace and its cursor.' },
);

/** The filter of GraphQL's arguments, which are REST's (SearchArgs) in camelCase. */
function filterOf(args: { appId?: { typename: string; id: string } | null; variantId?: { typename: string; id: string } | null }) {
  return searchFilter({
    ...restFields(args, { names: { spanKind: 'spankind' } }),
    app_id: databaseIdOf(args.appId, 'App', 'appId'),
    variant_id: databaseIdOf(args.variantId, 'Variant', 'variantId'),
  });
}

builder.queryFields((t) => ({
  trace: t.prismaField({
    type: 'Trace',
    nullable: true,
    description: 'A trace by the id the client sent.',
    args: { traceId: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => read.getTrace(ctx, args.traceId, query),
  }),
  span: t.prismaField({
    type: 'Span',
    nullable: true,
    description: 'A span by the ids the client sent; `traceId` picks one when the span id exists in several traces (else the latest-starting).',
    args: { spanId: t.arg.string({ required: true }), traceId: t.arg.string() },
    resolve: (_query, _root, args, ctx) => read.getSpan(ctx, args.spanId, args.traceId ?? undefined),
  }),
  traces: t.connection(
    {
      type: TraceRef,
      description: 'Traces matching every filter given, newest first unless `sortBy` says otherwise.',
      args: { ...searchArgs(t), sortBy: t.arg({ type: TraceSortField }), sortDirection: t.arg({ type: SortDirection }) },
      resolve: (_root, args, ctx) =>
        search.searchTraces(ctx, filterOf(args), { field: args.sortBy ?? 'start_time', direction: args.sortDirection ?? 'desc' }, args),
    },
    TraceConnection,
  ),
  spans: t.connection(
    {
      type: Span,
      description: 'Spans of all traces matching every filter given, newest first unless `sortBy` says otherwise.',
      args: { ...searchArgs(t), traceId: t.arg.string(), sortBy: t.arg({ type: SpanSortField }), sortDirection: t.arg({ type: SortDirection }) },
      resolve: (_root, args, ctx) =>
        search.searchSpans(ctx, filterOf(args), { field: args.sortBy ?? 'start_time', direction: args.sortDirection ?? 'desc' }, args),
    },
    SpanConnection,
  ),
  traceMetrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the traces matching the filters.',
    args: searchArgs(t),
    resolve: (_root, args, ctx) => search.traceMetrics(ctx, filterOf(args)),
  }),
  spanMetrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the spans matching the filters.',
    args: { ...searchArgs(t), traceId: t.arg.string() },
    resolve: (_root, args, ctx) => search.spanMetrics(ctx, filterOf(args)),
  }),
}));

const IngestedTrace = builder.objectRef<LegacyIngestAnswer>('IngestedTrace').implement({
  fields: (t) => ({
    traceId: t.exposeString('trace_id'),
    spans: t.exposeInt('spans', { description: 'Spans stored (a span id sent twice counts once).' }),
  }),
});

builder.mutationField('ingestTrace', (t) =>
  t.field({
    type: IngestedTrace,
    description: 'Stores spans as POST /observability/trace does; `input` is that body, `{trace, spans: […]}`.',
    args: { input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, ctx) => ingestLegacyTraceBody(ctx, args.input),
  }),
);
