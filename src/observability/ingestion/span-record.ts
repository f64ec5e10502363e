// What every source of spans hands to the write path: the SpanRecord, the vocabulary of its
// kinds and statuses, and the record serialised for its row (JSON fields as text, the time
// columns as SQL text). The other parts of observability and the domains that write spans
// (invocation and both kinds of evaluation) read these types; the writer is span-writer.ts.
import { jsonText, sqlDateOfMillis } from '../../shared/sql.js';
import { nanosToMillis, secondsBetween } from '../../shared/time.js';

export const spanKinds = ['LLM', 'CHAIN', 'TOOL', 'RETRIEVER', 'EMBEDDING', 'AGENT', 'WORKFLOW', 'RERANKER', 'GUARDRAIL', 'EVALUATOR', 'UNKNOWN'] as const;
export type SpanKind = (typeof spanKinds)[number];

/**
 * The environment of the spans Assay's own evaluation runs write (the calls of variants and
 * evaluators): searches and metrics leave those out unless asked (docs/observability.md#assays-own-calls).
 */
export const EVALUATION_ENVIRONMENT = 'assay-evaluation';

export const spanStatuses = ['UNSET', 'OK', 'ERROR'] as const;
export type SpanStatus = (typeof spanStatuses)[number];

/** Any JSON value, as stored in a Json column. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * One span, already normalised by its source. Times are nanoseconds since the epoch and
 * `endTimeUnixNano >= startTimeUnixNano` (the source rejects or repairs other spans); the Date
 * columns and the latency are derived from them here. Absent optional fields are stored as null.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** The parent's span id in the same trace; it may arrive later, or never. */
  parentSpanId: string | null;
  name: string;
  spanKind: SpanKind;
  statusCode: SpanStatus;
  statusMessage?: string | null;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  inputs?: JsonValue;
  outputs?: JsonValue;
  internals?: JsonValue;
  config?: JsonValue;
  environment?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  appId?: string | null;
  variantId?: string | null;
  variantName?: string | null;
  variantRevision?: number | null;
  model?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  totalTokens?: number | null;
  /** Prompt tokens read from the provider's cache (included in promptTokens). */
  cachedTokens?: number | null;
  /**
   * USD, as the client reported it. When absent, `writeSpans` computes it from the token usage
   * and the project's price table (src/pricing) where the model has a price.
   */
  cost?: number | null;
  /**
   * Where a given `cost` came from: the client (reported, the default) or Assay's own pricing of
   * the usage (computed: the spans of calls an evaluation makes, priced with the same price list).
   */
  costSource?: 'reported' | 'computed' | null;
  /** What the client sent, kept losslessly. */
  attributes: { [key: string]: JsonValue };
  events?: JsonValue;
  links?: JsonValue;
  resource?: JsonValue;
  scope?: JsonValue;
}

export interface WriteSummary {
  /** Distinct spans stored (a span sent twice in one call is stored once, the last copy winning). */
  spans: number;
  /** The traces touched, in first-seen order; their roll-ups are current. */
  traceIds: string[];
}

/** The SpanRecord fields stored as JSON text. */
type JsonField = 'inputs' | 'outputs' | 'internals' | 'config' | 'attributes' | 'events' | 'links' | 'resource' | 'scope';

/**
 * A SpanRecord ready for its row: JSON fields as JSON text, and the derived time columns (as SQL
 * text) and latency. OTLP ingestion makes these on its decoding thread (otlp/decoding-thread.ts), so the
 * thread that writes does no JSON or date work.
 */
export type SerializedSpanRecord = Omit<SpanRecord, JsonField> & { [K in JsonField]: string | null } & {
  serialized: true;
  startTime: string;
  endTime: string;
  latency: number;
};

/** A span as writeSpans takes it: plain, or already serialised. */
export type AnySpanRecord = SpanRecord | SerializedSpanRecord;

/** `record` with its JSON fields as text; `text` may share the work for values spans have in common. */
export function serializeSpanRecord(record: AnySpanRecord, text: (value: unknown) => string | null = jsonText): SerializedSpanRecord {
  return 'serialized' in record ? record : serializeOwnSpanRecord({ ...record }, text);
}

/**
 * `serializeSpanRecord` for a record no one else holds (one the mapper just made): the record
 * itself becomes the answer. Copying its forty fields was a seventh of the decoding thread's time.
 */
export function serializeOwnSpanRecord(record: SpanRecord, text: (value: unknown) => string | null = jsonText): SerializedSpanRecord {
  const { inputs, outputs, internals, config, attributes, events, links, resource, scope, startTimeUnixNano, endTimeUnixNano } = record;
  const serialized = record as unknown as SerializedSpanRecord;
  serialized.inputs = jsonText(inputs);
  serialized.outputs = jsonText(outputs);
  serialized.internals = jsonText(internals);
  serialized.config = jsonText(config);
  serialized.attributes = jsonText(attributes) ?? '{}';
  serialized.events = jsonText(events);
  serialized.links = jsonText(links);
  serialized.resource = text(resource);
  serialized.scope = text(scope);
  serialized.serialized = true;
  serialized.startTime = sqlDateOfMillis(nanosToMillis(startTimeUnixNano));
  serialized.endTime = sqlDateOfMillis(nanosToMillis(endTimeUnixNano));
  serialized.latency = secondsBetween(startTimeUnixNano, endTimeUnixNano);
  return serialized;
}

/** A `jsonText` that turns each distinct object into text once: a request's spans share their resource and scope. */
export function sharedJsonText(): (value: unknown) => string | null {
  const texts = new Map<unknown, string | null>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) texts.set(value, (text = jsonText(value)));
    return text;
  };
}

/** A SerializedSpanRecord as the array of its values (`packSpanRecord`'s order). */
export type PackedSpanRecord = unknown[];

/**
 * A record as the array of its values, to cross to another thread: structured clone writes an
 * object's every key beside its value and the receiver rebuilds each object key by key, 4.0 µs
 * per span against 2.3 packed, cloned and unpacked
 * (docs/observability.md#checkpoints-by-the-wals-length-and-dates-without-date-2026-11-28). Spelt
 * out field by field, as `UnpackedSpanRecord` is: a loop over the names was slower than the clone.
 */
export function packSpanRecord(r: SerializedSpanRecord): PackedSpanRecord {
  return [
    r.traceId,
    r.spanId,
    r.parentSpanId,
    r.name,
    r.spanKind,
    r.statusCode,
    r.statusMessage,
    r.startTimeUnixNano,
    r.endTimeUnixNano,
    r.startTime,
    r.endTime,
    r.latency,
    r.inputs,
    r.outputs,
    r.internals,
    r.config,
    r.environment,
    r.userId,
    r.sessionId,
    r.appId,
    r.variantId,
    r.variantName,
    r.variantRevision,
    r.model,
    r.promptTokens,
    r.completionTokens,
    r.totalTokens,
    r.cachedTokens,
    r.cost,
    r.costSource,
    r.attributes,
    r.events,
    r.links,
    r.resource,
    r.scope,
    r.serialized,
  ];
}

/**
 * A packed record's object again, made by a constructor rather than an object literal: V8 moved
 * the literal's allocation site to the old generation (these records live until their batch is
 * committed), whose collections then cost more than the clone saved.
 */
class UnpackedSpanRecord implements Record<keyof SerializedSpanRecord, unknown> {
  traceId: unknown;
  spanId: unknown;
  parentSpanId: unknown;
  name: unknown;
  spanKind: unknown;
  statusCode: unknown;
  statusMessage: unknown;
  startTimeUnixNano: unknown;
  endTimeUnixNano: unknown;
  startTime: unknown;
  endTime: unknown;
  latency: unknown;
  inputs: unknown;
  outputs: unknown;
  internals: unknown;
  config: unknown;
  environment: unknown;
  userId: unknown;
  sessionId: unknown;
  appId: unknown;
  variantId: unknown;
  variantName: unknown;
  variantRevision: unknown;
  model: unknown;
  promptTokens: unknown;
  completionTokens: unknown;
  totalTokens: unknown;
  cachedTokens: unknown;
  cost: unknown;
  costSource: unknown;
  attributes: unknown;
  events: unknown;
  links: unknown;
  resource: unknown;
  scope: unknown;
  serialized: unknown;

  constructor(v: PackedSpanRecord) {
    this.traceId = v[0];
    this.spanId = v[1];
    this.parentSpanId = v[2];
    this.name = v[3];
    this.spanKind = v[4];
    this.statusCode = v[5];
    this.statusMessage = v[6];
    this.startTimeUnixNano = v[7];
    this.endTimeUnixNano = v[8];
    this.startTime = v[9];
    this.endTime = v[10];
    this.latency = v[11];
    this.inputs = v[12];
    this.outputs = v[13];
    this.internals = v[14];
    this.config = v[15];
    this.environment = v[16];
    this.userId = v[17];
    this.sessionId = v[18];
    this.appId = v[19];
    this.variantId = v[20];
    this.variantName = v[21];
    this.variantRevision = v[22];
    this.model = v[23];
    this.promptTokens = v[24];
    this.completionTokens = v[25];
    this.totalTokens = v[26];
    this.cachedTokens = v[27];
    this.cost = v[28];
    this.costSource = v[29];
    this.attributes = v[30];
    this.events = v[31];
    this.links = v[32];
    this.resource = v[33];
    this.scope = v[34];
    this.serialized = v[35];
  }
}

/** `packSpanRecord` undone; a field the record lacked comes back undefined. */
export function unpackSpanRecord(v: PackedSpanRecord): SerializedSpanRecord {
  return new UnpackedSpanRecord(v) as unknown as SerializedSpanRecord;
}
