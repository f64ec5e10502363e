// The legacy JSON ingest (`POST /observability/trace {trace, spans}`), mapped to SpanRecords for
// the shared write path. Only this file knows the legacy field names.
import type { RequestContext } from '../../shared/context.js';
import { parseInput } from '../../shared/validation.js';
import type { JsonValue, SpanRecord } from './span-record.js';
import { writeSpans } from './span-writer.js';
import { legacyTraceInput, type LegacySpanInput, type LegacyTraceInput } from './inputs.js';

type JsonObject = { [key: string]: JsonValue };

/** The model of an LLM span, where its config names one (`{"model": "gpt-4o", …}`). */
function modelOf(config: JsonObject | null | undefined): string | null {
  return typeof config?.model === 'string' ? config.model : null;
}

export function legacySpanRecord(traceId: string, span: LegacySpanInput): SpanRecord {
  const config = span.config as JsonObject | null | undefined;
  return {
    traceId,
    spanId: span.id,
    parentSpanId: span.parent_span_id ?? null,
    name: span.name,
    spanKind: span.spankind,
    statusCode: span.status,
    startTimeUnixNano: span.start_time,
    endTimeUnixNano: span.end_time,
    inputs: (span.inputs ?? null) as JsonValue,
    outputs: (span.outputs ?? null) as JsonValue,
    internals: (span.internals ?? null) as JsonValue,
    config: config ?? null,
    environment: span.environment,
    userId: span.user,
    sessionId: span.session_id,
    appId: span.app_id,
    variantId: span.variant_id,
    variantName: span.variant_name,
    variantRevision: span.revision,
    model: modelOf(config),
    promptTokens: span.tokens?.prompt_tokens,
    completionTokens: span.tokens?.completion_tokens,
    totalTokens: span.tokens?.total_tokens,
    cost: span.cost,
    attributes: (span.attributes ?? {}) as JsonObject,
  };
}

export interface LegacyIngestAnswer {
  trace_id: string;
  /** Spans stored by this request (a span id sent twice in one request counts once). */
  spans: number;
}

/** A refused legacy body counts all its spans as rejected (the ingest metrics). */
export function countRejectedLegacy(ctx: RequestContext, body: unknown): void {
  const sent = (body as { spans?: unknown } | null)?.spans;
  ctx.metrics.countSpans('legacy', 0, Array.isArray(sent) ? sent.length : 0);
}

/** Stores a validated legacy body (REST validates it with legacyTraceInput as it describes it). */
export async function ingestLegacyTrace(ctx: RequestContext, input: LegacyTraceInput): Promise<LegacyIngestAnswer> {
  // Ingestion counts its spans against the key's rate limit (docs/access.md#rate-limits).
  await ctx.rateLimits.consume(ctx.principal.actor, input.spans.length);
  const written = await writeSpans(
    ctx,
    input.spans.map((span) => legacySpanRecord(input.trace, span)),
  );
  ctx.metrics.countSpans('legacy', written.spans);
  return { trace_id: input.trace, spans: written.spans };
}

/** Validates and stores a legacy body (the GraphQL `ingestTrace`); a body with any invalid span is refused whole. */
export async function ingestLegacyTraceBody(ctx: RequestContext, body: unknown): Promise<LegacyIngestAnswer> {
  let input;
  try {
    input = parseInput(legacyTraceInput, body, 'body');
  } catch (error) {
    countRejectedLegacy(ctx, body);
    throw error;
  }
  return ingestLegacyTrace(ctx, input);
}
