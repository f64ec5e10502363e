// GraphQL types and queries of observability (SPEC §7). Field names follow the span JSON of the
// contract; the tree fields (`children`, `parent`, `root`, `roots`) read the request's per-trace
// loader (read.ts), so a whole tree costs one query per trace however large it is.
import { builder } from '../graphql/builder.js';
import { spanKinds, spanStatuses } from './ingest.js';
import * as read from './read.js';
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
    metadata: t.field({ type: SpanMetadata, resolve: spanMetadata }),
    config: t.expose('config', { type: 'JSON', nullable: true }),
    variant: t.field({ type: SpanVariant, resolve: spanVariant }),
    environment: t.exposeString('environment', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true }),
    session_id: t.exposeString('sessionId', { nullable: true }),
    app_id: t.exposeString('appId', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    attributes: t.expose('attributes', { type: 'JSON' }),
    events: t.expose('events', { type: 'JSON', nullable: true }),
    links: t.expose('links', { type: 'JSON', nullable: true }),
    resource: t.expose('resource', { type: 'JSON', nullable: true }),
    scope: t.expose('scope', { type: 'JSON', nullable: true }),
  }),
});

// The tree fields refer to Span itself, so they are added once the type exists.
builder.prismaObjectFields(Span, (t) => ({
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

builder.prismaObject('Trace', {
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
    environment: t.exposeString('environment', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true }),
    session_id: t.exposeString('sessionId', { nullable: true }),
    app_id: t.exposeString('appId', { nullable: true }),
    variant_id: t.exposeString('variantId', { nullable: true }),
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
    spans: t.prismaConnection({
      type: 'Span',
      cursor: 'projectId_traceId_spanId',
      description: 'All spans of the trace, flat, in start order.',
      resolve: (query, trace, _args, ctx) => read.listTraceSpans(ctx, trace.traceId, query),
    }),
  }),
});

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
  traces: t.prismaConnection({
    type: 'Trace',
    cursor: 'projectId_traceId',
    description: 'Traces, newest first.',
    args: {
      started_after: t.arg({ type: 'DateTime', description: 'Traces that started at or after this time.' }),
      started_before: t.arg({ type: 'DateTime', description: 'Traces that started at or before this time.' }),
      name_contains: t.arg.string({ description: "Part of the root span's name." }),
      environment: t.arg.string(),
      user_id: t.arg.string(),
      session_id: t.arg.string(),
      app_id: t.arg.string(),
      variant_id: t.arg.string(),
    },
    resolve: (query, _root, args, ctx) =>
      read.listTraces(
        ctx,
        {
          startedAfter: args.started_after ?? undefined,
          startedBefore: args.started_before ?? undefined,
          nameContains: args.name_contains ?? undefined,
          environment: args.environment ?? undefined,
          userId: args.user_id ?? undefined,
          sessionId: args.session_id ?? undefined,
          appId: args.app_id ?? undefined,
          variantId: args.variant_id ?? undefined,
        },
        query,
      ),
  }),
}));
