// What the observability routes answer, described for the OpenAPI document (docs/api.md); a test
// checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';

const usage = z.object({ prompt_tokens: z.int().nullable(), completion_tokens: z.int().nullable(), total_tokens: z.int().nullable() });

/** A span (the REST reads, listings and trees); `children` nests a tree. */
export const spanResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    project_id: z.string(),
    parent_span_id: z.string().nullable(),
    created_at: timestamp(),
    variant: z.object({ variant_id: z.string().nullable(), variant_name: z.string().nullable(), revision: z.int().nullable() }),
    environment: z.string().nullable(),
    spankind: z.string(),
    status: z.string(),
    status_message: z.string().nullable().describe("The status' message (an error's description)"),
    metadata: z
      .object({
        cost: z.number().nullable().describe('USD'),
        latency: z.number().describe('Seconds'),
        usage,
        start_time: timestamp(),
        end_time: timestamp(),
      })
      .describe("The span's own cost and usage; the trace's root shows the trace's sums where it reported none"),
    trace_id: z.string(),
    user_id: z.string().nullable(),
    session_id: z.string().nullable(),
    model: z.string().nullable().describe('The model that answered, else the one asked for'),
    content: z.object({ inputs: z.unknown(), outputs: z.unknown(), internals: z.unknown() }),
    config: z.unknown(),
    get children() {
      return z.array(spanResponse).nullable().describe('Direct children in start order in a tree ([] for a leaf); null when read alone');
    },
  })
  .meta({ id: 'Span' });

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
    usage,
    cost: z.number().nullable(),
    environment: z.string().nullable(),
    user_id: z.string().nullable(),
    session_id: z.string().nullable(),
    app_id: z.string().nullable(),
    variant: z.object({ variant_id: z.string().nullable(), variant_name: z.string().nullable() }),
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
  })
  .meta({ id: 'Metrics' });

export const legacyIngestResponse = z.object({ trace_id: z.string(), spans: z.int().describe('Spans stored by this request') });

export const deletedSpansResponse = z
  .object({ spans: z.int().describe('Spans deleted'), traces: z.int().describe('Traces deleted, having no span left') })
  .meta({ id: 'DeletedSpans' });
