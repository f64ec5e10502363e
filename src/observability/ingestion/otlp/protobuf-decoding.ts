// OTLP/protobuf: an ExportTraceServiceRequest (an HTTP body or a gRPC message) decoded by the
// protobufjs descriptor (messages.ts) into the plain form of decoded-span.ts.
import type { JsonValue } from '../span-record.js';
import {
  checkIds,
  checkTimes,
  hex,
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
import { ExportTraceServiceRequest } from './messages.js';

/** protobufjs gives 64-bit integers as Long ({low, high}) or as a number when small. */
interface LongLike {
  low: number;
  high: number;
}

export function unsigned64(value: LongLike | number | null | undefined): bigint {
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

export type PbAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: LongLike | number;
  doubleValue?: number;
  arrayValue?: { values?: PbAnyValue[] };
  kvlistValue?: { values?: PbKeyValue[] };
  bytesValue?: Uint8Array;
};
export type PbKeyValue = { key?: string; value?: PbAnyValue };

const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

export function pbValue(value: PbAnyValue | null | undefined, depth: number): JsonValue {
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

export function pbAttributes(list: PbKeyValue[] | null | undefined, depth = 0): JsonObject {
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

type PbScope = { name?: string; version?: string; attributes?: PbKeyValue[]; droppedAttributesCount?: number };
type PbScopeSpans = { scope?: PbScope; spans?: PbSpan[]; schemaUrl?: string };
export type PbResource = { attributes?: PbKeyValue[]; droppedAttributesCount?: number };

/** A resource of a protobuf request (traces or logs); `where` names it when it cannot be read. */
export function pbResource(resource: PbResource | undefined, schemaUrl: string | undefined, where: string): OtlpResource {
  try {
    return {
      attributes: pbAttributes(resource?.attributes),
      droppedAttributesCount: resource?.droppedAttributesCount ?? 0,
      schemaUrl: schemaUrl ?? '',
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
  }
}

/** An instrumentation scope of a protobuf request (traces or logs). */
export function pbScope(scope: PbScope | undefined, schemaUrl: string | undefined, where: string): OtlpScope {
  try {
    return {
      name: scope?.name ?? '',
      version: scope?.version ?? '',
      attributes: pbAttributes(scope?.attributes),
      droppedAttributesCount: scope?.droppedAttributesCount ?? 0,
      schemaUrl: schemaUrl ?? '',
    };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
  }
}

/** A body as a Buffer, which protobufjs reads strings from with Node's native UTF-8 decoder, not its own in JavaScript
 * (a body that crossed to a worker thread arrives as a plain Uint8Array). */
export const asBuffer = (body: Uint8Array) => (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));

/** An OTLP/protobuf ExportTraceServiceRequest (HTTP body or gRPC message). */
export function decodeProtobuf(body: Uint8Array): OtlpGroup[] {
  let message: {
    resourceSpans?: {
      resource?: PbResource;
      scopeSpans?: PbScopeSpans[];
      instrumentationLibrarySpans?: PbScopeSpans[];
      schemaUrl?: string;
    }[];
  };
  try {
    message = ExportTraceServiceRequest.decode(asBuffer(body)) as typeof message;
  } catch (error) {
    throw new OtlpBadRequest(`the body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
  const groups: OtlpGroup[] = [];
  (message.resourceSpans ?? []).forEach((resourceSpans, r) => {
    const resource = pbResource(resourceSpans.resource, resourceSpans.schemaUrl, `resource_spans[${r}].resource`);
    [...(resourceSpans.scopeSpans ?? []), ...(resourceSpans.instrumentationLibrarySpans ?? [])].forEach((scopeSpans, s) => {
      const scope = pbScope(scopeSpans.scope, scopeSpans.schemaUrl, `resource_spans[${r}].scope_spans[${s}].scope`);
      groups.push({ resource, scope, spans: (scopeSpans.spans ?? []).map((span, i) => pbSpan(span, `#${i} of resource_spans[${r}].scope_spans[${s}]`)) });
    });
  });
  return groups;
}
