// The span JSON of the contract (docs/contract.md 2.1): its schema for the OpenAPI document
// (docs/api.md; a test checks real answers against it) and the functions that shape Span rows into
// it, shared by the REST reads and listings and the GraphQL sub-objects. The same JSON written as
// text without building span objects is span-json-text.ts.
import { z } from 'zod';
import { Prisma } from '../../shared/db.js';
import { timestamp } from '../../shared/http/openapi.js';
import { buildTree, type SpanIndex } from './span-tree.js';

/** Token counts, as a span and a trace summary show them. */
export const usageResponse = z.object({ prompt_tokens: z.int().nullable(), completion_tokens: z.int().nullable(), total_tokens: z.int().nullable() });

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
        usage: usageResponse,
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

/** The columns the span JSON reads; REST selects only these, leaving the raw attributes behind. */
export const spanJsonSelect = {
  projectId: true,
  traceId: true,
  spanId: true,
  parentSpanId: true,
  name: true,
  spanKind: true,
  statusCode: true,
  statusMessage: true,
  startTimeUnixNano: true,
  startTime: true,
  endTime: true,
  latency: true,
  inputs: true,
  outputs: true,
  internals: true,
  config: true,
  environment: true,
  userId: true,
  sessionId: true,
  model: true,
  variantId: true,
  variantName: true,
  variantRevision: true,
  promptTokens: true,
  completionTokens: true,
  totalTokens: true,
  cost: true,
} as const satisfies Prisma.SpanSelect;

export type SpanJsonSource = Prisma.SpanGetPayload<{ select: typeof spanJsonSelect }>;

export interface SpanVariantJson {
  variant_id: string | null;
  variant_name: string | null;
  revision: number | null;
}

export interface SpanUsageJson {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
}

export interface SpanMetadataJson {
  /** USD. */
  cost: number | null;
  /** Seconds. */
  latency: number;
  usage: SpanUsageJson;
  start_time: string;
  end_time: string;
}

export interface SpanContentJson {
  inputs: Prisma.JsonValue | null;
  outputs: Prisma.JsonValue | null;
  internals: Prisma.JsonValue | null;
}

export interface SpanJson {
  id: string;
  name: string;
  project_id: string;
  parent_span_id: string | null;
  created_at: string;
  variant: SpanVariantJson;
  environment: string | null;
  spankind: string;
  status: string;
  /** The status' message (an error's description), or null. */
  status_message: string | null;
  metadata: SpanMetadataJson;
  trace_id: string;
  user_id: string | null;
  session_id: string | null;
  /** The model that answered (else the one asked for), or null. */
  model: string | null;
  content: SpanContentJson;
  config: Prisma.JsonValue | null;
  /** The direct children in a tree answer (`[]` for a leaf); null when the span is read alone. */
  children: SpanJson[] | null;
}

export function spanVariant(span: Pick<SpanJsonSource, 'variantId' | 'variantName' | 'variantRevision'>): SpanVariantJson {
  return { variant_id: span.variantId, variant_name: span.variantName, revision: span.variantRevision };
}

export function spanUsage(span: Pick<SpanJsonSource, 'promptTokens' | 'completionTokens' | 'totalTokens'>): SpanUsageJson {
  return { prompt_tokens: span.promptTokens, completion_tokens: span.completionTokens, total_tokens: span.totalTokens };
}

/** A trace's sums, from its roll-up row (ingestion/trace-rollups.ts), which its root span shows where it reported none. */
export const traceTotalsSelect = {
  traceId: true,
  rootSpanId: true,
  cost: true,
  promptTokens: true,
  completionTokens: true,
  totalTokens: true,
} as const satisfies Prisma.TraceSelect;

export type TraceTotals = Prisma.TraceGetPayload<{ select: typeof traceTotalsSelect }>;

type OwnFigures = Pick<SpanJsonSource, 'spanId' | 'cost' | 'promptTokens' | 'completionTokens' | 'totalTokens'>;

/**
 * The cost and usage a span shows (docs/observability.md#cost-and-usage-in-a-tree): its own, as
 * stored. The trace's root (its roll-up's `rootSpanId`) that reported no cost shows the trace's
 * cost, and one that reported no token counts the trace's counts: those are the sums over every
 * other span then, so nothing is counted twice. A root that reported its own keeps them.
 */
export function spanFigures(span: OwnFigures, trace: TraceTotals | null | undefined): { cost: number | null; usage: SpanUsageJson } {
  const totals = trace && trace.rootSpanId === span.spanId ? trace : null;
  const ownUsage = span.promptTokens !== null || span.completionTokens !== null || span.totalTokens !== null;
  const usage = ownUsage || totals === null ? span : totals;
  return {
    cost: span.cost ?? totals?.cost ?? null,
    usage: spanUsage(usage),
  };
}

/** `trace`: the span's trace totals, for when the span is the trace's root (`spanFigures`). */
export function spanMetadata(span: SpanJsonSource, trace?: TraceTotals | null): SpanMetadataJson {
  const { cost, usage } = spanFigures(span, trace);
  return {
    cost,
    latency: span.latency,
    usage,
    start_time: span.startTime.toISOString(),
    end_time: span.endTime.toISOString(),
  };
}

export function spanContent(span: Pick<SpanJsonSource, 'inputs' | 'outputs' | 'internals'>): SpanContentJson {
  return { inputs: span.inputs, outputs: span.outputs, internals: span.internals };
}

/** One span in the contract's shape; `children` as given (see SpanJson.children); `trace` as for spanMetadata. */
export function spanJson(span: SpanJsonSource, children: SpanJson[] | null = null, trace?: TraceTotals | null): SpanJson {
  return {
    id: span.spanId,
    name: span.name,
    project_id: span.projectId,
    parent_span_id: span.parentSpanId,
    created_at: span.startTime.toISOString(),
    variant: spanVariant(span),
    environment: span.environment,
    spankind: span.spanKind,
    status: span.statusCode,
    status_message: span.statusMessage,
    metadata: spanMetadata(span, trace),
    trace_id: span.traceId,
    user_id: span.userId,
    session_id: span.sessionId,
    model: span.model,
    content: spanContent(span),
    config: span.config,
    children,
  };
}

/** `top` with all its descendants nested in `children`, each level in start order; `trace` as for spanMetadata. */
export function spanTreeJson<T extends SpanJsonSource>(index: SpanIndex<T>, top: T, trace?: TraceTotals | null): SpanJson {
  return buildTree(index, top, (span, children: SpanJson[]) => spanJson(span, children, trace));
}
