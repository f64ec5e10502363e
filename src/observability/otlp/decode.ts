// OTLP trace requests, protobuf or JSON, decoded to one plain form: ids as lower-case hex, times
// as BigInt nanoseconds, attribute values as JSON. A body that cannot be read at all is an
// OtlpBadRequest (400, the exporter drops it); a span that is unusable (bad id, bad times) is
// listed as rejected and the rest of the request is stored (OTLP partial success).
import type { JsonValue } from '../ingest.js';
import { ExportTraceServiceRequest, enumNumbers } from './proto.js';

export type JsonObject = { [key: string]: JsonValue };

export class OtlpBadRequest extends Error {}

/** A fault of one span; `decodeSpan` and the mapper throw it, the request goes on without that span. */
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
const MAX_VALUE_DEPTH = 32;
const MAX_NANOS = 2n ** 63n - 1n;

// An absent bytes field (proto3 omits empty ones) reads as protobufjs' default, a plain empty array.
const hex = (bytes: Uint8Array | readonly number[]) =>
  bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : Buffer.from(bytes).toString('hex');
const isZero = (id: string) => /^0*$/.test(id);

// ---------------------------------------------------------------------------------------------
// Shared checks

function spanRef(traceId: string | null, spanId: string | null, index: string): string {
  return spanId ? `span ${spanId}${traceId ? ` of trace ${traceId}` : ''}` : `span ${index}`;
}

function checkIds(traceId: string, spanId: string): void {
  if (traceId.length !== 32 || isZero(traceId)) throw new SpanFault('trace_id must be 16 bytes, not all zero');
  if (spanId.length !== 16 || isZero(spanId)) throw new SpanFault('span_id must be 8 bytes, not all zero');
}

function checkTimes(start: bigint, end: bigint): void {
  if (start <= 0n) throw new SpanFault('start_time_unix_nano is missing');
  if (end <= 0n) throw new SpanFault('end_time_unix_nano is missing');
  if (start > MAX_NANOS || end > MAX_NANOS) throw new SpanFault('time is after 2262-04-11');
  if (end < start) throw new SpanFault('end_time_unix_nano is before start_time_unix_nano');
}

// ---------------------------------------------------------------------------------------------
// Protobuf

/** protobufjs gives 64-bit integers as Long ({low, high}) or as a number when small. */
interface LongLike {
  low: number;
  high: number;
}

function unsigned64(value: LongLike | number | null | undefined): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === 'number') return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

function signed64(value: LongLike | number): JsonValue {
  if (typeof value === 'number') return value;
  if ((value.high === 0 && value.low >= 0) || (value.high === -1 && value.low < 0)) return value.low;
  const big = BigInt.asIntN(64, (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0));
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
}

function double(value: number): JsonValue {
  return Number.isFinite(value) ? value : String(value);
}

type PbAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: LongLike | number;
  doubleValue?: number;
  arrayValue?: { values?: PbAnyValue[] };
  kvlistValue?: { values?: PbKeyValue[] };
  bytesValue?: Uint8Array;
};
type PbKeyValue = { key?: string; value?: PbAnyValue };

const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

function pbValue(value: PbAnyValue | null | undefined, depth: number): JsonValue {
  if (!value) return null;
  if (own(value, 'stringValue')) return value.stringValue!;
  if (own(value, 'intValue')) return signed64(value.intValue!);
  if (own(value, 'boolValue')) return value.boolValue!;
  if (own(value, 'doubleValue')) return double(value.doubleValue!);
  if (depth >= MAX_VALUE_DEPTH && (own(value, 'arrayValue') || own(value, 'kvlistValue'))) {
    throw new SpanFault(`an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  }
  if (own(value, 'arrayValue')) return (value.arrayValue!.values ?? []).map((item) => pbValue(item, depth + 1));
  if (own(value, 'kvlistValue')) return pbAttributes(value.kvlistValue!.values, depth + 1);
  if (own(value, 'bytesValue')) return Buffer.from(value.bytesValue!).toString('base64');
  return null;
}

function pbAttributes(list: PbKeyValue[] | null | undefined, depth = 0): JsonObject {
  const out: JsonObject = {};
  if (!list) return out;
  for (const kv of list) out[kv.key ?? ''] = pbValue(kv.value, depth);
  return out;
}

type PbSpan = {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  parentSpanId?: Uint8Array;
  flags?: number;
  name?: string;
  kind?: number;
  startTimeUnixNano?: LongLike | number;
  endTimeUnixNano?: LongLike | number;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
  events?: { timeUnixNano?: LongLike | number; name?: string; attributes?: PbKeyValue[]; droppedAttributesCount?: number }[];
  droppedEventsCount?: number;
  links?: { traceId?: Uint8Array; spanId?: Uint8Array; traceState?: string; attributes?: PbKeyValue[]; droppedAttributesCount?: number; flags?: number }[];
  droppedLinksCount?: number;
  status?: { message?: string; code?: number };
};

function pbSpan(span: PbSpan, index: string): DecodedSpan {
  const traceId = span.traceId ? hex(span.traceId) : '';
  const spanId = span.spanId ? hex(span.spanId) : '';
  try {
    checkIds(traceId, spanId);
    const parent = span.parentSpanId && span.parentSpanId.length > 0 ? hex(span.parentSpanId) : null;
    if (parent !== null && parent.length !== 16) throw new SpanFault('parent_span_id must be 8 bytes');
    const start = unsigned64(span.startTimeUnixNano);
    const end = unsigned64(span.endTimeUnixNano);
    checkTimes(start, end);
    return {
      span: {
        traceId,
        spanId,
        parentSpanId: parent === null || isZero(parent) ? null : parent,
        traceState: span.traceState ?? '',
        flags: span.flags ?? 0,
        name: span.name ?? '',
        kind: span.kind ?? 0,
        startTimeUnixNano: start,
        endTimeUnixNano: end,
        attributes: pbAttributes(span.attributes),
        droppedAttributesCount: span.droppedAttributesCount ?? 0,
        events: (span.events ?? []).map((event) => ({
          name: event.name ?? '',
          timeUnixNano: unsigned64(event.timeUnixNano),
          attributes: pbAttributes(event.attributes),
          droppedAttributesCount: event.droppedAttributesCount ?? 0,
        })),
        droppedEventsCount: span.droppedEventsCount ?? 0,
        links: (span.links ?? []).map((link) => ({
          traceId: link.traceId ? hex(link.traceId) : '',
          spanId: link.spanId ? hex(link.spanId) : '',
          traceState: link.traceState ?? '',
          flags: link.flags ?? 0,
          attributes: pbAttributes(link.attributes),
          droppedAttributesCount: link.droppedAttributesCount ?? 0,
        })),
        droppedLinksCount: span.droppedLinksCount ?? 0,
        statusCode: span.status?.code ?? 0,
        statusMessage: span.status?.message ?? '',
      },
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    return { rejected: { ref: spanRef(traceId || null, spanId || null, index), reason: error.message } };
  }
}

type PbScopeSpans = {
  scope?: { name?: string; version?: string; attributes?: PbKeyValue[]; droppedAttributesCount?: number };
  spans?: PbSpan[];
  schemaUrl?: string;
};

/** An OTLP/protobuf ExportTraceServiceRequest (HTTP body or gRPC message). */
export function decodeProtobuf(body: Uint8Array): OtlpGroup[] {
  let message: {
    resourceSpans?: {
      resource?: { attributes?: PbKeyValue[]; droppedAttributesCount?: number };
      scopeSpans?: PbScopeSpans[];
      instrumentationLibrarySpans?: PbScopeSpans[];
      schemaUrl?: string;
    }[];
  };
  try {
    // As a Buffer, protobufjs reads strings with Node's native UTF-8 decoder, not its own in JavaScript
    // (a body that crossed to a worker thread arrives as a plain Uint8Array).
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    message = ExportTraceServiceRequest.decode(bytes) as typeof message;
  } catch (error) {
    throw new OtlpBadRequest(`the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
  const groups: OtlpGroup[] = [];
  (message.resourceSpans ?? []).forEach((resourceSpans, r) => {
    let resource: OtlpResource;
    try {
      resource = {
        attributes: pbAttributes(resourceSpans.resource?.attributes),
        droppedAttributesCount: resourceSpans.resource?.droppedAttributesCount ?? 0,
        schemaUrl: resourceSpans.schemaUrl ?? '',
      };
    } catch (error) {
      if (!(error instanceof SpanFault)) throw error;
      throw new OtlpBadRequest(`resource_spans[${r}].resource: ${error.message}`);
    }
    [...(resourceSpans.scopeSpans ?? []), ...(resourceSpans.instrumentationLibrarySpans ?? [])].forEach((scopeSpans, s) => {
      let scope: OtlpScope;
      try {
        scope = {
          name: scopeSpans.scope?.name ?? '',
          version: scopeSpans.scope?.version ?? '',
          attributes: pbAttributes(scopeSpans.scope?.attributes),
          droppedAttributesCount: scopeSpans.scope?.droppedAttributesCount ?? 0,
          schemaUrl: scopeSpans.schemaUrl ?? '',
        };
      } catch (error) {
        if (!(error instanceof SpanFault)) throw error;
        throw new OtlpBadRequest(`resource_spans[${r}].scope_spans[${s}].scope: ${error.message}`);
      }
      groups.push({ resource, scope, spans: (scopeSpans.spans ?? []).map((span, i) => pbSpan(span, `#${i} of resource_spans[${r}].scope_spans[${s}]`)) });
    });
  });
  return groups;
}

// ---------------------------------------------------------------------------------------------
// JSON (OTLP/JSON: protobuf's JSON mapping with lowerCamelCase names, hex ids, enums as numbers;
// snake_case names, enum names and base64 ids are accepted too)

type Json = unknown;

function field(object: Json, camel: string, snake?: string): Json {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const record = object as Record<string, Json>;
  if (record[camel] !== undefined) return record[camel];
  return snake === undefined ? undefined : record[snake];
}

function jsonList(value: Json, what: string, fault: (message: string) => Error): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw fault(`${what} must be an array`);
  return value;
}

function jsonString(value: Json, what: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new SpanFault(`${what} must be a string`);
  return value;
}

function jsonCount(value: Json, what: string): number {
  if (value === undefined || value === null) return 0;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) throw new SpanFault(`${what} must be a non-negative integer`);
  return number;
}

/** A 64-bit unsigned integer given as a number or a decimal string. */
function jsonNanos(value: Json, what: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  throw new SpanFault(`${what} must be an unsigned integer (number or decimal string)`);
}

/** An id in hex (OTLP/JSON), or base64 (protobuf's JSON mapping), as lower-case hex. */
function jsonId(value: Json, bytes: number, what: string): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') throw new SpanFault(`${what} must be a hex string`);
  if (value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) return value.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const decoded = Buffer.from(value, 'base64');
    if (decoded.length === bytes) return decoded.toString('hex');
  }
  throw new SpanFault(`${what} must be ${bytes * 2} hex digits`);
}

function jsonEnum(value: Json, what: string, max: number): number {
  if (value === undefined || value === null) return 0;
  const number = typeof value === 'string' ? enumNumbers[value] : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max) throw new SpanFault(`${what} is not a known value`);
  return number;
}

function jsonValue(value: Json, depth: number): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (value === undefined || value === null) return null;
    throw new SpanFault('an attribute value must be an AnyValue object');
  }
  const v = value as Record<string, Json>;
  const string = field(v, 'stringValue', 'string_value');
  if (string !== undefined) {
    if (typeof string !== 'string') throw new SpanFault('stringValue must be a string');
    return string;
  }
  const int = field(v, 'intValue', 'int_value');
  if (int !== undefined) {
    if (typeof int === 'number' && Number.isInteger(int)) return int;
    if (typeof int === 'string' && /^-?\d{1,19}$/.test(int)) {
      const big = BigInt(int);
      if (big < -(2n ** 63n) || big >= 2n ** 63n) throw new SpanFault('intValue is out of the 64-bit range');
      return Number.isSafeInteger(Number(big)) ? Number(big) : int.replace(/^(-?)0+(?=\d)/, '$1');
    }
    throw new SpanFault('intValue must be an integer');
  }
  const bool = field(v, 'boolValue', 'bool_value');
  if (bool !== undefined) {
    if (typeof bool !== 'boolean') throw new SpanFault('boolValue must be a boolean');
    return bool;
  }
  const dbl = field(v, 'doubleValue', 'double_value');
  if (dbl !== undefined) {
    if (typeof dbl === 'number') return dbl;
    if (dbl === 'NaN' || dbl === 'Infinity' || dbl === '-Infinity') return dbl;
    if (typeof dbl === 'string' && dbl.trim() !== '' && Number.isFinite(Number(dbl))) return Number(dbl);
    throw new SpanFault('doubleValue must be a number');
  }
  const array = field(v, 'arrayValue', 'array_value');
  const kvlist = field(v, 'kvlistValue', 'kvlist_value');
  if ((array !== undefined || kvlist !== undefined) && depth >= MAX_VALUE_DEPTH) {
    throw new SpanFault(`an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  }
  if (array !== undefined) return jsonList(field(array, 'values'), 'arrayValue.values', (m) => new SpanFault(m)).map((item) => jsonValue(item, depth + 1));
  if (kvlist !== undefined) return jsonAttributes(field(kvlist, 'values'), depth + 1);
  const bytes = field(v, 'bytesValue', 'bytes_value');
  if (bytes !== undefined) {
    if (typeof bytes !== 'string') throw new SpanFault('bytesValue must be a base64 string');
    return bytes;
  }
  return null;
}

function jsonAttributes(list: Json, depth = 0): JsonObject {
  const out: JsonObject = {};
  for (const kv of jsonList(list, 'attributes', (m) => new SpanFault(m))) {
    const key = field(kv, 'key');
    if (typeof key !== 'string') throw new SpanFault('an attribute has no string key');
    out[key] = jsonValue(field(kv, 'value'), depth);
  }
  return out;
}

function jsonSpan(span: Json, index: string): DecodedSpan {
  let traceId = '';
  let spanId = '';
  try {
    if (span === null || typeof span !== 'object' || Array.isArray(span)) throw new SpanFault('a span must be an object');
    spanId = jsonId(field(span, 'spanId', 'span_id'), 8, 'span_id');
    traceId = jsonId(field(span, 'traceId', 'trace_id'), 16, 'trace_id');
    checkIds(traceId, spanId);
    const parent = jsonId(field(span, 'parentSpanId', 'parent_span_id'), 8, 'parent_span_id');
    const start = jsonNanos(field(span, 'startTimeUnixNano', 'start_time_unix_nano'), 'start_time_unix_nano');
    const end = jsonNanos(field(span, 'endTimeUnixNano', 'end_time_unix_nano'), 'end_time_unix_nano');
    checkTimes(start, end);
    const status = field(span, 'status');
    const fault = (message: string) => new SpanFault(message);
    return {
      span: {
        traceId,
        spanId,
        parentSpanId: parent === '' || isZero(parent) ? null : parent,
        traceState: jsonString(field(span, 'traceState', 'trace_state'), 'trace_state'),
        flags: jsonCount(field(span, 'flags'), 'flags'),
        name: jsonString(field(span, 'name'), 'name'),
        kind: jsonEnum(field(span, 'kind'), 'kind', 5),
        startTimeUnixNano: start,
        endTimeUnixNano: end,
        attributes: jsonAttributes(field(span, 'attributes')),
        droppedAttributesCount: jsonCount(field(span, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
        events: jsonList(field(span, 'events'), 'events', fault).map((event) => ({
          name: jsonString(field(event, 'name'), 'event name'),
          timeUnixNano: jsonNanos(field(event, 'timeUnixNano', 'time_unix_nano'), 'event time_unix_nano'),
          attributes: jsonAttributes(field(event, 'attributes')),
          droppedAttributesCount: jsonCount(field(event, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
        })),
        droppedEventsCount: jsonCount(field(span, 'droppedEventsCount', 'dropped_events_count'), 'dropped_events_count'),
        links: jsonList(field(span, 'links'), 'links', fault).map((link) => ({
          traceId: jsonId(field(link, 'traceId', 'trace_id'), 16, 'link trace_id'),
          spanId: jsonId(field(link, 'spanId', 'span_id'), 8, 'link span_id'),
          traceState: jsonString(field(link, 'traceState', 'trace_state'), 'link trace_state'),
          flags: jsonCount(field(link, 'flags'), 'link flags'),
          attributes: jsonAttributes(field(link, 'attributes')),
          droppedAttributesCount: jsonCount(field(link, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
        })),
        droppedLinksCount: jsonCount(field(span, 'droppedLinksCount', 'dropped_links_count'), 'dropped_links_count'),
        statusCode: jsonEnum(field(status, 'code'), 'status code', 2),
        statusMessage: jsonString(field(status, 'message'), 'status message'),
      },
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    return { rejected: { ref: spanRef(traceId || null, spanId || null, index), reason: error.message } };
  }
}

/** An OTLP/JSON ExportTraceServiceRequest, already parsed from its text. */
export function decodeJson(body: Json): OtlpGroup[] {
  const bad = (message: string) => new OtlpBadRequest(message);
  if (body === undefined) return [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('the body must be a JSON object (ExportTraceServiceRequest)');
  const groups: OtlpGroup[] = [];
  jsonList(field(body, 'resourceSpans', 'resource_spans'), 'resourceSpans', bad).forEach((resourceSpans, r) => {
    const where = `resourceSpans[${r}]`;
    if (resourceSpans === null || typeof resourceSpans !== 'object') throw bad(`${where} must be an object`);
    let resource: OtlpResource;
    try {
      const raw = field(resourceSpans, 'resource');
      resource = {
        attributes: jsonAttributes(field(raw, 'attributes')),
        droppedAttributesCount: jsonCount(field(raw, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
        schemaUrl: jsonString(field(resourceSpans, 'schemaUrl', 'schema_url'), 'schemaUrl'),
      };
    } catch (error) {
      if (!(error instanceof SpanFault)) throw error;
      throw bad(`${where}.resource: ${error.message}`);
    }
    const scopes = [
      ...jsonList(field(resourceSpans, 'scopeSpans', 'scope_spans'), `${where}.scopeSpans`, bad),
      ...jsonList(field(resourceSpans, 'instrumentationLibrarySpans', 'instrumentation_library_spans'), `${where}.instrumentationLibrarySpans`, bad),
    ];
    scopes.forEach((scopeSpans, s) => {
      const at = `${where}.scopeSpans[${s}]`;
      if (scopeSpans === null || typeof scopeSpans !== 'object') throw bad(`${at} must be an object`);
      let scope: OtlpScope;
      try {
        const raw = field(scopeSpans, 'scope') ?? field(scopeSpans, 'instrumentationLibrary', 'instrumentation_library');
        scope = {
          name: jsonString(field(raw, 'name'), 'scope name'),
          version: jsonString(field(raw, 'version'), 'scope version'),
          attributes: jsonAttributes(field(raw, 'attributes')),
          droppedAttributesCount: jsonCount(field(raw, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
          schemaUrl: jsonString(field(scopeSpans, 'schemaUrl', 'schema_url'), 'schemaUrl'),
        };
      } catch (error) {
        if (!(error instanceof SpanFault)) throw error;
        throw bad(`${at}.scope: ${error.message}`);
      }
      const spans = jsonList(field(scopeSpans, 'spans'), `${at}.spans`, bad);
      groups.push({ resource, scope, spans: spans.map((span, i) => jsonSpan(span, `#${i} of ${at}`)) });
    });
  });
  return groups;
}
