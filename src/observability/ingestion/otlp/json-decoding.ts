// OTLP/JSON: protobuf's JSON mapping with lowerCamelCase names, hex ids and enums as numbers
// (snake_case names, enum names and base64 ids are accepted too), decoded into the plain form of
// decoded-span.ts.
import type { JsonValue } from '../span-record.js';
import {
  checkIds,
  checkTimes,
  isZero,
  MAX_VALUE_DEPTH,
  OtlpBadRequest,
  spanRef,
  SpanFault,
  type DecodedSpan,
  type JsonObject,
  type OtlpGroup,
  type OtlpResource,
  type OtlpScope,
} from './decoded-span.js';
import { enumNumbers } from './messages.js';

export type Json = unknown;

export function field(object: Json, camel: string, snake?: string): Json {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const record = object as Record<string, Json>;
  if (record[camel] !== undefined) return record[camel];
  return snake === undefined ? undefined : record[snake];
}

export function jsonList(value: Json, what: string, fault: (message: string) => Error): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw fault(`${what} must be an array`);
  return value;
}

export function jsonString(value: Json, what: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new SpanFault(`${what} must be a string`);
  return value;
}

export function jsonCount(value: Json, what: string): number {
  if (value === undefined || value === null) return 0;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) throw new SpanFault(`${what} must be a non-negative integer`);
  return number;
}

/** A 64-bit unsigned integer given as a number or a decimal string. */
export function jsonNanos(value: Json, what: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  throw new SpanFault(`${what} must be an unsigned integer (number or decimal string)`);
}

/** An id in hex (OTLP/JSON), or base64 (protobuf's JSON mapping), as lower-case hex. */
export function jsonId(value: Json, bytes: number, what: string): string {
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

export function jsonValue(value: Json, depth: number): JsonValue {
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

export function jsonAttributes(list: Json, depth = 0): JsonObject {
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

/** The resource of a `resourceSpans` or `resourceLogs` item; `where` names it when it cannot be read. */
export function jsonResource(resourceItem: Json, where: string): OtlpResource {
  try {
    const raw = field(resourceItem, 'resource');
    return {
      attributes: jsonAttributes(field(raw, 'attributes')),
      droppedAttributesCount: jsonCount(field(raw, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
      schemaUrl: jsonString(field(resourceItem, 'schemaUrl', 'schema_url'), 'schemaUrl'),
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
  }
}

/** The scope of a `scopeSpans` or `scopeLogs` item (or the older `instrumentationLibrary`). */
export function jsonScope(scopeItem: Json, where: string): OtlpScope {
  try {
    const raw = field(scopeItem, 'scope') ?? field(scopeItem, 'instrumentationLibrary', 'instrumentation_library');
    return {
      name: jsonString(field(raw, 'name'), 'scope name'),
      version: jsonString(field(raw, 'version'), 'scope version'),
      attributes: jsonAttributes(field(raw, 'attributes')),
      droppedAttributesCount: jsonCount(field(raw, 'droppedAttributesCount', 'dropped_attributes_count'), 'dropped_attributes_count'),
      schemaUrl: jsonString(field(scopeItem, 'schemaUrl', 'schema_url'), 'schemaUrl'),
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
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
    const resource = jsonResource(resourceSpans, `${where}.resource`);
    const scopes = [
      ...jsonList(field(resourceSpans, 'scopeSpans', 'scope_spans'), `${where}.scopeSpans`, bad),
      ...jsonList(field(resourceSpans, 'instrumentationLibrarySpans', 'instrumentation_library_spans'), `${where}.instrumentationLibrarySpans`, bad),
    ];
    scopes.forEach((scopeSpans, s) => {
      const at = `${where}.scopeSpans[${s}]`;
      if (scopeSpans === null || typeof scopeSpans !== 'object') throw bad(`${at} must be an object`);
      const scope = jsonScope(scopeSpans, `${at}.scope`);
      const spans = jsonList(field(scopeSpans, 'spans'), `${at}.spans`, bad);
      groups.push({ resource, scope, spans: spans.map((span, i) => jsonSpan(span, `#${i} of ${at}`)) });
    });
  });
  return groups;
}
