// What the search routes answer (trace and span listings, metrics), described for the OpenAPI
// document (docs/api.md; a test checks real answers against these), and the shaping of a Trace
// row into its summary.
import { z } from 'zod';
import { timestamp } from '../../shared/http/openapi.js';
import { spanResponse, usageResponse } from '../traces/responses.js';
import type { ScoreSummary, TraceScoreValue } from '../../scores/trace-search.js';
import type { TraceRow } from './listings.js';

/** What a trace's score column and a score summary both say of a score name. */
const scoreFields = { name: z.string(), data_type: z.string(), count: z.int(), mean: z.number().nullable() };

export const traceSummaryResponse = z
  .object({
    trace_id: z.string(),
    root_span_id: z.string(),
    name: z.string(),
    spankind: z.string(),
    status: z.string(),
    start_time: timestamp(),
    end_time: timestamp(),
    latency: z.number(),
    span_count: z.int(),
    error_count: z.int(),
    usage: usageResponse,
    cost: z.number().nullable(),
    environment: z.string().nullable(),
    user_id: z.string().nullable(),
    session_id: z.string().nullable(),
    app_id: z.string().nullable(),
    variant: z.object({ variant_id: z.string().nullable(), variant_name: z.string().nullable() }),
    scores: z
      .array(z.object({ ...scoreFields, value: z.number().nullable(), string_value: z.string().nullable() }))
      .optional()
      .describe(
        "With `score_names`: the trace's scores (its spans' too) of each name it has, in the order asked; the newest's value and label, the mean of all",
      ),
  })
  .meta({ id: 'TraceSummary' });

const nextCursor = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last');

export const traceListResponse = z.object({ traces: z.array(traceSummaryResponse), next_cursor: nextCursor });
export const spanListResponse = z.object({ spans: z.array(spanResponse), next_cursor: nextCursor });

const maybe = z.number().nullable();
export const metricsResponse = z
  .object({
    count: z.int(),
    error_count: z.int(),
    error_rate: maybe,
    cost: maybe,
    prompt_tokens: maybe,
    completion_tokens: maybe,
    total_tokens: maybe,
    latency: z.object({ avg: maybe, min: maybe, max: maybe, p50: maybe, p95: maybe, p99: maybe }),
    scores: z
      .array(
        z.object({
          ...scoreFields,
          stddev: maybe,
          interval: z.object({ low: z.number(), high: z.number() }).nullable(),
          labels: z.array(z.object({ label: z.string(), count: z.int(), share: z.number() })),
        }),
      )
      .optional()
      .describe("With `score_names` (traces only): the matching traces' scores per name and data type: count, mean with its 95% interval, label shares"),
  })
  .meta({ id: 'Metrics' });

/** A trace's score column in the REST list. */
export function traceScoreJson(value: TraceScoreValue) {
  return { name: value.name, data_type: value.dataType, count: value.count, mean: value.mean, value: value.value, string_value: value.stringValue };
}

/** A score summary of `GET /observability/metrics`. */
export function scoreSummaryJson(summary: ScoreSummary) {
  return {
    name: summary.name,
    data_type: summary.dataType,
    count: summary.count,
    mean: summary.mean,
    stddev: summary.stddev,
    interval: summary.interval,
    labels: summary.labels,
  };
}

/** A trace in listings: its roll-up, without spans (GET /observability/traces/{id} has the tree). */
export function traceJson(trace: TraceRow) {
  return {
    trace_id: trace.traceId,
    root_span_id: trace.rootSpanId,
    name: trace.name,
    spankind: trace.spanKind,
    status: trace.statusCode,
    start_time: trace.startTime.toISOString(),
    end_time: trace.endTime.toISOString(),
    latency: trace.latency,
    span_count: trace.spanCount,
    error_count: trace.errorCount,
    usage: { prompt_tokens: trace.promptTokens, completion_tokens: trace.completionTokens, total_tokens: trace.totalTokens },
    cost: trace.cost,
    environment: trace.environment,
    user_id: trace.userId,
    session_id: trace.sessionId,
    app_id: trace.appId,
    variant: { variant_id: trace.variantId, variant_name: trace.variantName },
  };
}
