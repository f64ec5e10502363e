// GraphQL queries of trace and span search (docs/observability.md#search): `traces` and `spans`
// with their filters, sorting and paging, `traceMetrics`, `spanMetrics`, `traceSeries` and
// `scoreSummary`, over the Span and Trace types of traces/graphql.ts, and the score columns of a
// trace (`Trace.scoreValues`, docs/scores.md#in-the-trace-list).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ArgBuilder } from '@pothos/core';
import { ScoreDataTypeEnum } from '../../scores/graphql.js';
import { scoresLoader } from '../../scores/score-reads.js';
import { traceScoreValues } from '../../scores/trace-search.js';
import type * as scoreSearch from '../../scores/trace-search.js';
import { ValidationError } from '../../shared/errors.js';
import { builder } from '../../shared/graphql/builder.js';
import { ConfidenceInterval } from '../../shared/graphql/interval.js';
import { databaseIdOf } from '../../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../../shared/graphql/names.js';
import { EVALUATION_ENVIRONMENT } from '../ingestion/span-record.js';
import { Span, SpanConnection, SpanKind, SpanStatusCode, TraceRef } from '../traces/graphql.js';
import { MAX_ATTRIBUTE_FILTERS, MAX_SCORE_FILTERS, attributeOperators, searchFilter } from './inputs.js';
import * as listings from './listings.js';
import * as metrics from './metrics.js';

const sortFieldDescriptions = {
  start_time: 'By start time.',
  latency: 'By latency.',
  cost: 'By cost in USD; an unknown cost sorts below every known one.',
  tokens: 'By total tokens; an unknown count sorts below every known one.',
  span_count: 'By number of spans.',
  error_count: 'By number of failed spans.',
} as const;
const TraceSortField = builder.enumType('TraceSortField', {
  description: 'The order of `traces`.',
  values: upperCaseValues(listings.traceSortFields, sortFieldDescriptions),
});
const SpanSortField = builder.enumType('SpanSortField', {
  description: 'The order of `spans`.',
  values: upperCaseValues(listings.spanSortFields, sortFieldDescriptions),
});
const SortDirection = builder.enumType('SortDirection', {
  description: 'Ascending or descending.',
  values: upperCaseValues(['asc', 'desc'], { asc: 'Smallest or earliest first.', desc: 'Largest or latest first.' }),
});

const LatencyMetrics = builder.objectRef<metrics.Metrics['latency']>('LatencyMetrics').implement({
  description: 'Seconds; percentiles are nearest-rank.',
  fields: (t) => ({
    avg: t.exposeFloat('avg', { nullable: true, description: 'Mean; null when nothing matched.' }),
    min: t.exposeFloat('min', { nullable: true, description: 'Shortest; null when nothing matched.' }),
    max: t.exposeFloat('max', { nullable: true, description: 'Longest; null when nothing matched.' }),
    p50: t.exposeFloat('p50', { nullable: true, description: 'Median; null when nothing matched.' }),
    p95: t.exposeFloat('p95', { nullable: true, description: '95th percentile; null when nothing matched.' }),
    p99: t.exposeFloat('p99', { nullable: true, description: '99th percentile; null when nothing matched.' }),
  }),
});

export const Metrics = builder.objectRef<metrics.Metrics>('ObservabilityMetrics').implement({
  description: 'Aggregates over the traces or spans matching a filter (REST: `GET /observability/metrics`).',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'How many matched.' }),
    errorCount: t.exposeInt('error_count', { description: 'How many of them have status ERROR.' }),
    errorRate: t.exposeFloat('error_rate', { nullable: true, description: 'The share with status ERROR, 0 to 1; null when count is 0.' }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD summed over those with a known cost; null when none has one.' }),
    promptTokens: t.exposeInt('prompt_tokens', { nullable: true, description: 'Prompt tokens summed; null when none were reported.' }),
    completionTokens: t.exposeInt('completion_tokens', { nullable: true, description: 'Completion tokens summed; null when none were reported.' }),
    totalTokens: t.exposeInt('total_tokens', { nullable: true, description: 'Total tokens summed; null when none were reported.' }),
    latency: t.expose('latency', { type: LatencyMetrics, description: 'Latency statistics.' }),
  }),
});

const ScoreFilter = builder.inputType('ScoreFilter', {
  description:
    'A score a trace must have (any score of the name on the trace or its spans that meets it), or must not: give `name` and exactly one of `min`/`max`, `value`, `anyOf` or `present`.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The score name.' }),
    min: t.float({ description: 'A value at least this (with `max`: a range).' }),
    max: t.float({ description: 'A value at most this.' }),
    value: t.boolean({ description: "A BOOLEAN score's value: true or false." }),
    anyOf: t.stringList({ description: "A CATEGORICAL score's label, any of these (as written)." }),
    present: t.boolean({ description: 'true: has a score of the name, whatever its value; false: has none.' }),
  }),
});

const AttributeFilterOperator = builder.enumType('AttributeFilterOperator', {
  description: 'How an `AttributeFilter` compares.',
  values: upperCaseValues(attributeOperators, {
    equals: 'The attribute is `value` as JSON (a string, number or boolean).',
    contains: "The attribute's text contains `value` (a string), ignoring ASCII case.",
    exists: 'The span has the key, whatever its value.',
  }),
});

const AttributeFilter = builder.inputType('AttributeFilter', {
  description: "A span attribute a span must have (traces: some span of the trace), by its key as sent (OTLP's dotted keys whole).",
  fields: (t) => ({
    key: t.string({ required: true, description: 'The attribute\'s key, e.g. "gen_ai.system".' }),
    operator: t.field({ type: AttributeFilterOperator, required: true, description: 'How to compare.' }),
    value: t.field({ type: 'JSON', description: 'EQUALS: a string, number or boolean; CONTAINS: a string; EXISTS: none.' }),
  }),
});

const TraceScoreValue = builder.objectRef<scoreSearch.TraceScoreValue>('TraceScoreValue').implement({
  description: "A trace's scores of one name (on the trace and its spans), as a column of the trace list shows them.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The score name.' }),
    dataType: t.expose('dataType', { type: ScoreDataTypeEnum, description: "The newest score's data type." }),
    count: t.exposeInt('count', { description: 'How many scores of the name the trace has.' }),
    mean: t.exposeFloat('mean', { nullable: true, description: 'The mean of their values; null when none has one (TEXT).' }),
    value: t.exposeFloat('value', { nullable: true, description: "The newest score's value (a boolean's 1 or 0, a category's value)." }),
    stringValue: t.exposeString('stringValue', { nullable: true, description: "The newest score's label (True/False, the category) or text." }),
  }),
});

const ScoreLabelShare = builder.objectRef<scoreSearch.LabelShare>('ScoreLabelShare').implement({
  description: "One label's part of the BOOLEAN or CATEGORICAL scores of a summary.",
  fields: (t) => ({
    label: t.exposeString('label', { description: 'True/False, or the category.' }),
    count: t.exposeInt('count', { description: 'Scores with this label.' }),
    share: t.exposeFloat('share', { description: "Of the summary's count, 0 to 1." }),
  }),
});

export const ScoreSummary = builder.objectRef<scoreSearch.ScoreSummary>('ScoreSummary').implement({
  description: 'The scores of one name and data type of the traces matching a filter (and of their spans).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The score name.' }),
    dataType: t.expose('dataType', { type: ScoreDataTypeEnum, description: 'Their data type.' }),
    count: t.exposeInt('count', { description: 'How many scores.' }),
    mean: t.exposeFloat('mean', {
      nullable: true,
      description: 'The mean of their values (a BOOLEAN: the share of true; a CATEGORICAL: of its values); null for TEXT.',
    }),
    stddev: t.exposeFloat('stddev', { nullable: true, description: 'Sample standard deviation of the values; null below two.' }),
    interval: t.expose('interval', {
      type: ConfidenceInterval,
      nullable: true,
      description: "95% interval of the mean: Wilson's for BOOLEAN, Student's t otherwise; null below two values.",
    }),
    labels: t.expose('labels', {
      type: [ScoreLabelShare],
      description: 'BOOLEAN and CATEGORICAL: the labels, most frequent first; empty otherwise.',
    }),
  }),
});

const SeriesScore = builder.objectRef<metrics.SeriesScore>('TraceSeriesScore').implement({
  description: "One score name's mean over the traces of an interval of `traceSeries`.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The score name.' }),
    count: t.exposeInt('count', { description: 'Scores with a value of those traces (and their spans).' }),
    mean: t.exposeFloat('mean', { description: 'The mean of those values.' }),
  }),
});

/** Score names asked for: at most twice MAX_SCORE_FILTERS. */
function scoreNames(names: readonly string[] | null | undefined, argument: string): string[] {
  const list = [...new Set(names ?? [])];
  if (list.length > MAX_SCORE_FILTERS * 2) throw ValidationError.at(['args', argument], `List should have at most ${MAX_SCORE_FILTERS * 2} items`, 'too_long');
  return list;
}

builder.objectField(TraceRef, 'scoreValues', (t) =>
  t.field({
    type: [TraceScoreValue],
    description:
      "The trace's scores (its spans' too) of each name asked for that it has, in the order asked (every name it has, by name, when `names` is absent): the score columns of a trace list.",
    args: { names: t.arg.stringList({ description: `Score names, at most ${MAX_SCORE_FILTERS * 2}; every name the trace has when absent.` }) },
    resolve: async (trace, args, ctx) =>
      traceScoreValues(await scoresLoader(ctx, 'traceId').load(trace.traceId), args.names == null ? null : scoreNames(args.names, 'names')),
  }),
);

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

// The filters of traces, spans and their metrics (SearchFilter in filters.ts).
/** The filter arguments of `traces` and `spans`, also those of `addAnnotationQueueItemsFromFilter`. */
export function searchArgs(t: { arg: ArgBuilder<BuilderTypes> }) {
  return {
    startedAfter: t.arg({ type: 'DateTime', description: 'Started at or after this time.' }),
    startedBefore: t.arg({ type: 'DateTime', description: 'Started at or before this time.' }),
    nameContains: t.arg.string({ description: "Part of the name (traces: the root span's), ignoring ASCII case." }),
    spanKind: t.arg({ type: [SpanKind], description: "Any of these kinds (traces: the root span's)." }),
    status: t.arg({ type: [SpanStatusCode], description: 'Any of these statuses (traces: ERROR when any span failed).' }),
    userId: t.arg.string({ description: 'Exactly this end-user id.' }),
    sessionId: t.arg.string({ description: 'Exactly this session id.' }),
    environment: t.arg.string({ description: 'Exactly this deployment environment.' }),
    appId: t.arg.globalID({ description: 'The global id of an App.' }),
    variantId: t.arg.globalID({ description: 'The global id of a Variant.' }),
    variantName: t.arg.string({ description: 'Exactly this variant name.' }),
    model: t.arg.string({ description: 'A model or its family ("gpt-4o" matches "gpt-4o-2024-08-06"), letter case counting; traces: any span.' }),
    text: t.arg.string({ description: 'Text in the inputs or outputs (traces: of any span), ignoring ASCII case.' }),
    minCost: t.arg.float({ description: 'Cost at least this many USD.' }),
    maxCost: t.arg.float({ description: 'Cost at most this many USD.' }),
    minLatency: t.arg.float({ description: 'Latency at least this many seconds.' }),
    maxLatency: t.arg.float({ description: 'Latency at most this many seconds.' }),
    scores: t.arg({
      type: [ScoreFilter],
      description: `Scores the trace has (spans: their trace has), every one of them; at most ${MAX_SCORE_FILTERS}.`,
    }),
    attributes: t.arg({
      type: [AttributeFilter],
      description: `Span attributes a span has (traces: some span of the trace has each), every one of them; at most ${MAX_ATTRIBUTE_FILTERS}.`,
    }),
    includeEvaluations: t.arg.boolean({
      description: `Also the traces and spans of Assay's own evaluation calls (environment "${EVALUATION_ENVIRONMENT}"), left out unless this is true or \`environment\` names theirs.`,
    }),
  } as const;
}

const SeriesBucket = builder.objectRef<metrics.SeriesBucket>('TraceSeriesBucket').implement({
  description: 'The traces that started within one interval of `traceSeries`.',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime', description: 'Start of the interval (included).' }),
    end: t.expose('end', { type: 'DateTime', description: 'End of the interval (excluded, but the last includes it).' }),
    count: t.exposeInt('count', { description: 'Traces that started in it.' }),
    errorCount: t.exposeInt('error_count', { description: 'Of them, those with a failed span.' }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD summed over them; null when none has a cost.' }),
    avgLatency: t.exposeFloat('avg_latency', { nullable: true, description: 'Mean latency in seconds; null when none started in it.' }),
    scores: t.expose('scores', { type: [SeriesScore], description: 'The means of the scores `scoreNames` asked for, of the names these traces have.' }),
  }),
});

export const TraceConnection = builder.connectionObject(
  { type: TraceRef, name: 'TraceConnection', description: 'Traces, a page at a time.' },
  { description: 'A trace and its cursor.' },
);

/** The filter of GraphQL's arguments, which are REST's (SearchArgs) in camelCase. */
export function filterOf(args: { appId?: { typename: string; id: string } | null; variantId?: { typename: string; id: string } | null }) {
  return searchFilter({
    ...restFields(args, { names: { spanKind: 'spankind' }, nested: ['scores', 'attributes'] }),
    app_id: databaseIdOf(args.appId, 'App', 'appId'),
    variant_id: databaseIdOf(args.variantId, 'Variant', 'variantId'),
  });
}

builder.queryFields((t) => ({
  traces: t.connection(
    {
      type: TraceRef,
      description: 'Traces matching every filter given, newest first unless `sortBy` says otherwise.',
      args: {
        ...searchArgs(t),
        sortBy: t.arg({ type: TraceSortField, description: 'Order by this; START_TIME when absent.' }),
        sortDirection: t.arg({ type: SortDirection, description: 'DESC when absent.' }),
      },
      resolve: async (_root, args, ctx) => {
        // SQLite answers on this thread: the page's list waits a turn of the event loop, so that the
        // figures the request's other fields ask over the filter go to the read worker before the
        // list holds the thread, and run beside it (docs/observability.md#search).
        if (ctx.sql.provider === 'sqlite') await nextTurn();
        return listings.searchTraces(ctx, filterOf(args), { field: args.sortBy ?? 'start_time', direction: args.sortDirection ?? 'desc' }, args);
      },
    },
    TraceConnection,
  ),
  spans: t.connection(
    {
      type: Span,
      description: 'Spans of all traces matching every filter given, newest first unless `sortBy` says otherwise.',
      args: {
        ...searchArgs(t),
        traceId: t.arg.string({ description: 'Only spans of the trace with this id.' }),
        sortBy: t.arg({ type: SpanSortField, description: 'Order by this; START_TIME when absent.' }),
        sortDirection: t.arg({ type: SortDirection, description: 'DESC when absent.' }),
      },
      resolve: (_root, args, ctx) =>
        listings.searchSpans(ctx, filterOf(args), { field: args.sortBy ?? 'start_time', direction: args.sortDirection ?? 'desc' }, args),
    },
    SpanConnection,
  ),
  traceMetrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the traces matching the filters.',
    args: searchArgs(t),
    resolve: (_root, args, ctx) => metrics.traceMetrics(ctx, filterOf(args)),
  }),
  traceSeries: t.field({
    type: [SeriesBucket],
    description:
      'The traces matching the filters counted over equal intervals (a millisecond at least), from `startedAfter` (else the first match) to `startedBefore` (else the last); empty when none match.',
    args: {
      ...searchArgs(t),
      buckets: t.arg.int({ defaultValue: 30, description: `How many intervals, 1 to ${metrics.MAX_SERIES_BUCKETS}.` }),
      scoreNames: t.arg.stringList({ description: 'Score names whose mean each interval gives (`scores`), for a chart of a score over time.' }),
    },
    complexity: (args) => args.buckets ?? 30,
    resolve: (_root, args, ctx) => metrics.traceSeries(ctx, filterOf(args), args.buckets ?? 30, scoreNames(args.scoreNames, 'scoreNames')),
  }),
  scoreSummary: t.field({
    type: [ScoreSummary],
    description:
      'The scores of the traces matching the filters (and of their spans), per name and data type: count, mean with its 95% interval, label shares. In the order of `names`, else by name.',
    args: {
      ...searchArgs(t),
      names: t.arg.stringList({ description: `Score names, at most ${MAX_SCORE_FILTERS * 2}; every name the traces have when absent.` }),
    },
    resolve: (_root, args, ctx) => metrics.traceScoreSummaries(ctx, filterOf(args), args.names == null ? null : scoreNames(args.names, 'names')),
  }),
  spanMetrics: t.field({
    type: Metrics,
    description: 'Count, errors, cost, tokens and latency percentiles of the spans matching the filters.',
    args: { ...searchArgs(t), traceId: t.arg.string({ description: 'Only spans of the trace with this id.' }) },
    resolve: (_root, args, ctx) => metrics.spanMetrics(ctx, filterOf(args)),
  }),
}));
