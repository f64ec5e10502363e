// GraphQL types and reads of traces and spans (docs/observability.md#graphql): the Span and Trace
// nodes, and the `trace` and `span` queries. Field names follow the span JSON of the contract; the
// tree fields (`children`, `parent`, `root`, `roots`) read the request's per-trace loader
// (trace-reads.ts), so a whole tree costs one query per trace however large it is. Search and
// metrics add their queries in search/graphql.ts.
import type { RequestContext } from '../../shared/context.js';
import { ScoreRef } from '../../scores/graphql.js';
import { scoresLoader } from '../../scores/score-reads.js';
import { builder } from '../../shared/graphql/builder.js';
import { globalId } from '../../shared/graphql/ids.js';
import { upperCaseValues } from '../../shared/graphql/names.js';
import { spanKinds, spanStatuses } from '../ingestion/span-record.js';
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
} from './responses.js';
import * as read from './trace-reads.js';

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

export const SpanKind = builder.enumType('SpanKind', {
  description: "What a span's work was (OpenInference span kinds; `spankind` in REST).",
  values: upperCaseValues(spanKinds, {
    LLM: 'A call to a language model.',
    CHAIN: 'A sequence of steps, such as a prompt template feeding a model.',
    TOOL: 'A call to a tool or function the model chose.',
    RETRIEVER: 'A lookup of documents, such as in a vector store.',
    EMBEDDING: 'A call to an embedding model.',
    AGENT: 'An agent deciding on and taking steps.',
    WORKFLOW: 'A whole workflow: an application entry point.',
    RERANKER: 'A reordering of retrieved documents.',
    GUARDRAIL: 'A check of inputs or outputs against a policy.',
    EVALUATOR: 'An evaluation of another output.',
    UNKNOWN: 'Kind not reported.',
  }),
});
export const SpanStatusCode = builder.enumType('SpanStatusCode', {
  description: "A span's OpenTelemetry status.",
  values: upperCaseValues(spanStatuses, {
    UNSET: 'No status reported.',
    OK: 'Reported successful.',
    ERROR: 'Failed; `statusMessage` may say why.',
  }),
});

export const TokenUsage = builder.objectRef<SpanUsageJson>('TokenUsage').implement({
  description: 'Token counts of model calls; each null when none was reported.',
  fields: (t) => ({
    promptTokens: t.exposeInt('prompt_tokens', { nullable: true, description: 'Tokens sent to the model, cached ones included.' }),
    completionTokens: t.exposeInt('completion_tokens', { nullable: true, description: 'Tokens the model generated.' }),
    totalTokens: t.exposeInt('total_tokens', { nullable: true, description: 'Prompt and completion tokens together.' }),
  }),
});

const SpanVariant = builder.objectRef<SpanVariantJson>('SpanVariant').implement({
  description: 'The app variant that produced a span, as its attributes name it; each field null when not reported.',
  fields: (t) => ({
    variantId: t.id({ nullable: true, description: 'The global id of the Variant.', resolve: (v) => globalId('Variant', v.variant_id) }),
    variantName: t.exposeString('variant_name', { nullable: true, description: "The variant's name." }),
    revision: t.exposeInt('revision', { nullable: true, description: "The variant's revision number." }),
  }),
});

const SpanMetadata = builder.objectRef<SpanMetadataJson>('SpanMetadata').implement({
  description: "A span's cost, latency, token usage and times, as REST's `metadata`.",
  fields: (t) => ({
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD; null when no cost is known.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    usage: t.expose('usage', { type: TokenUsage, description: 'Token counts.' }),
    startTime: t.expose('start_time', { type: 'DateTime', description: 'When the span started.' }),
    endTime: t.expose('end_time', { type: 'DateTime', description: 'When the span ended.' }),
  }),
});

const SpanContent = builder.objectRef<SpanContentJson>('SpanContent').implement({
  description: "What a span took in and gave out, read from its attributes (REST's `content`).",
  fields: (t) => ({
    inputs: t.expose('inputs', { type: 'JSON', nullable: true, description: 'Inputs, such as prompt messages; null when none were reported.' }),
    outputs: t.expose('outputs', { type: 'JSON', nullable: true, description: 'Outputs, such as the completion; null when none were reported.' }),
    internals: t.expose('internals', {
      type: 'JSON',
      nullable: true,
      description: 'Prompt template, tools, metadata and tags; null when none were reported.',
    }),
  }),
});

// A span id is unique only within its trace: the global id holds both (as JSON, since ids sent as
// JSON may hold any character), so no client cache ever merges two spans (docs/graphql.md#ids).
export const Span = builder.prismaNode('Span', {
  id: { resolve: (span) => JSON.stringify([span.traceId, span.spanId]) },
  nullable: true,
  description: 'One unit of work of a trace, as an OpenTelemetry span (REST: `GET /observability/spans/{span_id}`).',
  findUnique: (id, ctx) => {
    const [traceId, spanId] = spanKey(id);
    return { projectId_traceId_spanId: { projectId: ctx.projectId, traceId, spanId } };
  },
  fields: (t) => ({
    spanId: t.exposeString('spanId', { description: 'The span id the client sent (OpenTelemetry: 16 hex digits); unique within its trace.' }),
    traceId: t.exposeString('traceId', { description: 'The trace id the client sent (OpenTelemetry: 32 hex digits).' }),
    parentSpanId: t.exposeString('parentSpanId', { nullable: true, description: "The parent's span id, as the client sent it." }),
    name: t.exposeString('name', { description: 'The operation the span names, as the client sent it.' }),
    spanKind: t.field({ type: SpanKind, description: 'What kind of work the span was.', resolve: (span) => span.spanKind as (typeof spanKinds)[number] }),
    status: t.field({ type: SpanStatusCode, description: 'Whether the span succeeded.', resolve: (span) => span.statusCode as (typeof spanStatuses)[number] }),
    statusMessage: t.exposeString('statusMessage', { nullable: true, description: 'Why the span failed, when the client said.' }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'When the span started.' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'When the span ended.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds.' }),
    content: t.field({ type: SpanContent, description: 'Inputs, outputs and internals.', resolve: spanContent }),
    metadata: t.field({
      type: SpanMetadata,
      description: "The span's own cost and usage; the trace's root shows the trace's sums where it reported none (docs/observability.md).",
      resolve: async (span, _args, ctx) => spanMetadata(span, await read.traceTotalsLoader(ctx).load(span.traceId)),
    }),
    config: t.expose('config', {
      type: 'JSON',
      nullable: true,
      description: 'Model, provider and invocation parameters of a model call; null when none were reported.',
    }),
    variant: t.field({ type: SpanVariant, description: 'The app variant that produced the span.', resolve: spanVariant }),
    environment: t.exposeString('environment', { nullable: true, description: 'The deployment environment the client named, e.g. "production".' }),
    userId: t.exposeString('userId', { nullable: true, description: "The end user's id, as the client sent it." }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: 'The session or conversation id, as the client sent it.' }),
    appId: t.id({ nullable: true, description: 'The global id of the App the span names.', resolve: (span) => globalId('App', span.appId) }),
    model: t.exposeString('model', { nullable: true, description: 'The model a model call used; null for other spans.' }),
    cachedTokens: t.exposeInt('cachedTokens', { nullable: true, description: 'Prompt tokens read from the provider cache (part of `promptTokens`).' }),
    costSource: t.exposeString('costSource', {
      nullable: true,
      description: 'Where the cost came from: "reported" (sent by the client), "computed" (token usage × price table), null (no cost known).',
    }),
    attributes: t.expose('attributes', { type: 'JSON', description: 'The attributes the client sent, unchanged.' }),
    events: t.expose('events', { type: 'JSON', nullable: true, description: 'The span events, `[{name, time, time_unix_nano, attributes}]`; null when none.' }),
    links: t.expose('links', {
      type: 'JSON',
      nullable: true,
      description: 'Links to other spans, `[{trace_id, span_id, trace_state, flags, attributes}]`; null when none.',
    }),
    resource: t.expose('resource', {
      type: 'JSON',
      nullable: true,
      description: 'The OpenTelemetry resource that sent the span, `{attributes, schema_url?}`.',
    }),
    scope: t.expose('scope', { type: 'JSON', nullable: true, description: 'The instrumentation scope, `{name, version, attributes, schema_url?}`.' }),
  }),
});

export const SpanConnection = builder.connectionObject(
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
      resolve: (query, span, _args, ctx) => read.listChildSpans(ctx, span, query),
    },
    SpanConnection,
  ),
  children: t.field({
    type: [Span],
    description: 'Direct children, in start order.',
    resolve: async (span, _args, ctx) => [...(await read.traceSpansLoader(ctx).load(span.traceId)).childrenOf(span.spanId)],
  }),
  scores: t.field({
    type: [ScoreRef],
    description: 'The scores of this span (target SPAN), oldest first; they may have come before the span (docs/scores.md).',
    resolve: async (span, _args, ctx) => (await scoresLoader(ctx, 'spanId').load(span.spanId)).filter((score) => score.traceId === span.traceId),
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

const SpanOutline = builder.objectRef<read.TraceOutline>('SpanOutline').implement({
  description:
    "Every span of a trace in start order, as parallel lists (position i of each list is the same span): the trace page's tree and timeline, without payloads.",
  fields: (t) => ({
    spanIds: t.exposeStringList('spanIds', { description: 'The span ids the client sent.' }),
    parents: t.field({
      type: ['Int'],
      nullable: { list: false, items: true },
      description: "The position of each span's parent in these lists; null for a top-level span (no parent, or a parent never stored).",
      resolve: (outline) => outline.parents,
    }),
    names: t.exposeStringList('names', { description: "The spans' names." }),
    kinds: t.field({ type: [SpanKind], description: "The spans' kinds.", resolve: (outline) => outline.kinds as (typeof spanKinds)[number][] }),
    statuses: t.field({
      type: [SpanStatusCode],
      description: "The spans' statuses.",
      resolve: (outline) => outline.statuses as (typeof spanStatuses)[number][],
    }),
    offsets: t.exposeFloatList('offsets', { description: "Seconds from the trace's first span start to each span's start." }),
    latencies: t.exposeFloatList('latencies', { description: 'Seconds each span took.' }),
  }),
});

export const TraceRef = builder.prismaNode('Trace', {
  id: { resolve: (trace) => trace.traceId },
  nullable: true,
  description: 'All spans sharing a trace id, with sums over them (REST: `GET /observability/traces/{trace_id}`).',
  findUnique: (traceId, ctx) => ({ projectId_traceId: { projectId: ctx.projectId, traceId } }),
  fields: (t) => ({
    traceId: t.exposeString('traceId', { description: 'The trace id the client sent (OpenTelemetry: 32 hex digits).' }),
    name: t.exposeString('name', { nullable: true, description: "The root span's name." }),
    startTime: t.expose('startTime', { type: 'DateTime', description: 'Start of the earliest span.' }),
    endTime: t.expose('endTime', { type: 'DateTime', description: 'End of the latest span.' }),
    latency: t.exposeFloat('latency', { description: 'Seconds from startTime to endTime.' }),
    spanCount: t.exposeInt('spanCount', { description: 'Spans stored for the trace.' }),
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
    environment: t.exposeString('environment', { nullable: true, description: "The root span's deployment environment." }),
    userId: t.exposeString('userId', { nullable: true, description: "The root span's end-user id." }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: "The root span's session id." }),
    appId: t.id({
      nullable: true,
      description: "The global id of the App named by the first span naming a variant (else the root span's); as sent, an id or a name.",
      resolve: (trace) => globalId('App', trace.appId),
    }),
    variantId: t.id({
      nullable: true,
      description: 'The global id of the Variant the first span naming a variant names (docs/observability.md#traces-of-a-revision).',
      resolve: (trace) => globalId('Variant', trace.variantId),
    }),
    variantName: t.exposeString('variantName', { nullable: true, description: 'The variant (or Langfuse prompt) name the first span naming a variant gives.' }),
    variantRevision: t.exposeInt('variantRevision', { nullable: true, description: 'The revision (or Langfuse prompt version) that span gives.' }),
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
    outline: t.field({
      type: SpanOutline,
      description: 'What a tree and a timeline need of every span, without payloads: one light read however large the trace (docs/ui.md#the-trace-page).',
      // One object of scalar lists, whatever its length: no per-span fields to count.
      complexity: 10,
      resolve: (trace, _args, ctx) => read.traceOutline(ctx, trace.traceId),
    }),
    scores: t.field({
      type: [ScoreRef],
      description: "The trace's scores, oldest first: its own (target TRACE), and its spans' too with `includeSpans` (docs/scores.md).",
      args: { includeSpans: t.arg.boolean({ defaultValue: false, description: "Also the scores of the trace's spans (target SPAN)." }) },
      resolve: async (trace, args, ctx) =>
        (await scoresLoader(ctx, 'traceId').load(trace.traceId)).filter((score) => args.includeSpans || score.target === 'trace'),
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

builder.queryFields((t) => ({
  trace: t.prismaField({
    type: 'Trace',
    nullable: true,
    description: 'A trace by the id the client sent.',
    args: { traceId: t.arg.string({ required: true, description: 'The trace id the client sent.' }) },
    resolve: (query, _root, args, ctx) => read.getTrace(ctx, args.traceId, query),
  }),
  span: t.prismaField({
    type: 'Span',
    nullable: true,
    description: 'A span by the ids the client sent; `traceId` picks one when the span id exists in several traces (else the latest-starting).',
    args: {
      spanId: t.arg.string({ required: true, description: 'The span id the client sent.' }),
      traceId: t.arg.string({ description: 'The trace id the client sent.' }),
    },
    resolve: (_query, _root, args, ctx) => read.getSpan(ctx, args.spanId, args.traceId ?? undefined),
  }),
}));
