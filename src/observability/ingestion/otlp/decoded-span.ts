// The plain form OTLP trace requests are decoded to, protobuf (protobuf-decoding.ts) or JSON
// (json-decoding.ts) alike: ids as lower-case hex, times as BigInt nanoseconds, attribute values as
// JSON; and the checks both decoders make of a span. A body that cannot be read at all is an
// OtlpBadRequest (400, the exporter drops it); a span that is unusable (bad id, bad times) is
// listed as rejected and the rest of the request is stored (OTLP partial success).
import type { JsonValue } from '../span-record.js';

export type JsonObject = { [key: string]: JsonValue };

/** How an OTLP body is encoded (its Content-Type; gRPC is protobuf). */
export type OtlpFormat = 'protobuf' | 'json';

export class OtlpBadRequest extends Error {}

/** A fault of one span; the decoders and the mapper throw it, the request goes on without that span. */
export class SpanFault extends Error {}

export interface OtlpEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: JsonObject;
  droppedAttributesCount: number;
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  traceState: string;
  flags: number;
  attributes: JsonObject;
  droppedAttributesCount: number;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  traceState: string;
  flags: number;
  name: string;
  /** OTLP SpanKind number: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: JsonObject;
  droppedAttributesCount: number;
  events: OtlpEvent[];
  droppedEventsCount: number;
  links: OtlpLink[];
  droppedLinksCount: number;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
}

/** A span with every field at its protobuf default, for a decoder to fill. */
export function blankSpan(): OtlpSpan {
  return {
    traceId: '',
    spanId: '',
    parentSpanId: null,
    traceState: '',
    flags: 0,
    name: '',
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    statusCode: 0,
    statusMessage: '',
  };
}

export interface OtlpResource {
  attributes: JsonObject;
  droppedAttributesCount: number;
  schemaUrl: string;
}

export interface OtlpScope {
  name: string;
  version: string;
  attributes: JsonObject;
  droppedAttributesCount: number;
  schemaUrl: string;
}

export type DecodedSpan = { span: OtlpSpan } | { rejected: { ref: string; reason: string } };

export interface OtlpGroup {
  resource: OtlpResource;
  scope: OtlpScope;
  spans: DecodedSpan[];
}

/** Attribute values nest at most this deep (kvlists and arrays); deeper spans are rejected. */
export const MAX_VALUE_DEPTH = 32;
const MAX_NANOS = 2n ** 63n - 1n;

// An absent bytes field (proto3 omits empty ones) reads as protobufjs' default, a plain empty array.
export const hex = (bytes: Uint8Array | readonly number[]) =>
  bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : Buffer.from(bytes).toString('hex');
/** Whether an id is all zeros (or empty). A loop: the regular expression was 4% of the decoding thread. */
export function isZero(id: string): boolean {
  for (let i = 0; i < id.length; i++) if (id.charCodeAt(i) !== 48) return false;
  return true;
}

export function spanRef(traceId: string | null, spanId: string | null, index: string): string {
  return spanId ? `span ${spanId}${traceId ? ` of trace ${traceId}` : ''}` : `span ${index}`;
}

export function checkIds(traceId: string, spanId: string): void {
  if (traceId.length !== 32 || isZero(traceId)) throw new SpanFault('trace_id must be 16 bytes, not all zero');
  if (spanId.length !== 16 || isZero(spanId)) throw new SpanFault('span_id must be 8 bytes, not all zero');
}

export function checkTimes(start: bigint, end: bigint): void {
  if (start <= 0n) throw new SpanFault('start_time_unix_nano is missing');
  if (end <= 0n) throw new SpanFault('end_time_unix_nano is missing');
  if (start > MAX_NANOS || end > MAX_NANOS) throw new SpanFault('time is after 2262-04-11');
  if (end < start) throw new SpanFault('end_time_unix_nano is before start_time_unix_nano');
}

/** A JSON body's value; undefined for an empty body (an export of nothing). */
export function jsonBody(body: Uint8Array): unknown {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new OtlpBadRequest(`The body is not valid JSON: ${(error as Error).message}`);
  }
}
