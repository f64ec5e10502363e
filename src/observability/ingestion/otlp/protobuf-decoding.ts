// OTLP/protobuf: an ExportTraceServiceRequest (an HTTP body or a gRPC message) decoded into the
// plain form of decoded-span.ts.
import type { JsonValue } from '../span-record.js';
import {
  blankSpan,
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
  type OtlpEvent,
  type OtlpLink,
  type OtlpScope,
} from './decoded-span.js';
import protobuf from 'protobufjs';

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

// The wire is read field by field (docs/observability.md#otlp-ingestion): straight into the plain
// form, without protobufjs' message objects in between, which were most of the decoding's garbage.
// Field numbers are those of messages.ts; unknown fields and fields of an unexpected wire type are
// skipped, as protobuf readers do.

export const LEN = 2;

/** The bounds of the length-delimited field at the reader's position, the reader moved past it. */
export function delimited(reader: protobuf.Reader): number {
  const length = reader.uint32();
  const end = reader.pos + length;
  if (end > reader.len) throw new RangeError(`index out of range: ${end} > ${reader.len}`);
  return end;
}

export function idHex(reader: protobuf.Reader, buffer: Buffer): string {
  const end = delimited(reader);
  const id = buffer.toString('hex', reader.pos, end);
  reader.pos = end;
  return id;
}

export function skip(reader: protobuf.Reader, tag: number): void {
  reader.skipType(tag & 7);
}

export function pbValue(reader: protobuf.Reader, buffer: Buffer, end: number, depth: number): JsonValue {
  let value: JsonValue = null;
  while (reader.pos < end) {
    const tag = reader.uint32();
    switch (tag) {
      case (1 << 3) | LEN:
        value = reader.string();
        break;
      case 2 << 3:
        value = reader.bool();
        break;
      case 3 << 3:
        value = signed64(reader.int64());
        break;
      case (4 << 3) | 1:
        value = double(reader.double());
        break;
      case (5 << 3) | LEN:
      case (6 << 3) | LEN: {
        if (depth >= MAX_VALUE_DEPTH) throw new SpanFault(`an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
        const inner = delimited(reader);
        value = tag === ((5 << 3) | LEN) ? pbArray(reader, buffer, inner, depth + 1) : pbAttributes(reader, buffer, inner, {}, depth + 1);
        break;
      }
      case (7 << 3) | LEN: {
        const inner = delimited(reader);
        value = buffer.toString('base64', reader.pos, inner);
        reader.pos = inner;
        break;
      }
      default:
        skip(reader, tag);
    }
  }
  return value;
}

function pbArray(reader: protobuf.Reader, buffer: Buffer, end: number, depth: number): JsonValue[] {
  const out: JsonValue[] = [];
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) out.push(pbValue(reader, buffer, delimited(reader), depth));
    else skip(reader, tag);
  }
  return out;
}

/** The KeyValue at the reader's position (its end given) into `into`. */
export function pbKeyValue(reader: protobuf.Reader, buffer: Buffer, end: number, into: JsonObject, depth: number): void {
  let key = '';
  let value: JsonValue = null;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) key = reader.string();
    else if (tag === ((2 << 3) | LEN)) value = pbValue(reader, buffer, delimited(reader), depth);
    else skip(reader, tag);
  }
  into[key] = value;
}

/** A KeyValueList's values (field 1) up to `end`, into `into`. */
function pbAttributes(reader: protobuf.Reader, buffer: Buffer, end: number, into: JsonObject, depth: number): JsonObject {
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) pbKeyValue(reader, buffer, delimited(reader), into, depth);
    else skip(reader, tag);
  }
  return into;
}

interface Fields {
  attributes: JsonObject;
  droppedAttributesCount: number;
}

function pbEvent(reader: protobuf.Reader, buffer: Buffer, end: number): OtlpEvent {
  const event: OtlpEvent = { name: '', timeUnixNano: 0n, attributes: {}, droppedAttributesCount: 0 };
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | 1)) event.timeUnixNano = unsigned64(reader.fixed64());
    else if (tag === ((2 << 3) | LEN)) event.name = reader.string();
    else if (tag === ((3 << 3) | LEN)) pbKeyValue(reader, buffer, delimited(reader), event.attributes, 0);
    else if (tag === 4 << 3) event.droppedAttributesCount = reader.uint32();
    else skip(reader, tag);
  }
  return event;
}

function pbLink(reader: protobuf.Reader, buffer: Buffer, end: number): OtlpLink {
  const link: OtlpLink = { traceId: '', spanId: '', traceState: '', flags: 0, attributes: {}, droppedAttributesCount: 0 };
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) link.traceId = idHex(reader, buffer);
    else if (tag === ((2 << 3) | LEN)) link.spanId = idHex(reader, buffer);
    else if (tag === ((3 << 3) | LEN)) link.traceState = reader.string();
    else if (tag === ((4 << 3) | LEN)) pbKeyValue(reader, buffer, delimited(reader), link.attributes, 0);
    else if (tag === 5 << 3) link.droppedAttributesCount = reader.uint32();
    else if (tag === ((6 << 3) | 5)) link.flags = reader.fixed32();
    else skip(reader, tag);
  }
  return link;
}

function pbSpan(reader: protobuf.Reader, buffer: Buffer, end: number, index: string): DecodedSpan {
  let traceId = '';
  let spanId = '';
  try {
    let parent: string | null = null;
    let start = 0n;
    let finish = 0n;
    const span = blankSpan();
    while (reader.pos < end) {
      const tag = reader.uint32();
      switch (tag) {
        case (1 << 3) | LEN:
          traceId = idHex(reader, buffer);
          break;
        case (2 << 3) | LEN:
          spanId = idHex(reader, buffer);
          break;
        case (3 << 3) | LEN:
          span.traceState = reader.string();
          break;
        case (4 << 3) | LEN:
          parent = idHex(reader, buffer);
          break;
        case (5 << 3) | LEN:
          span.name = reader.string();
          break;
        case 6 << 3:
          span.kind = reader.int32();
          break;
        case (7 << 3) | 1:
          start = unsigned64(reader.fixed64());
          break;
        case (8 << 3) | 1:
          finish = unsigned64(reader.fixed64());
          break;
        case (9 << 3) | LEN:
          pbKeyValue(reader, buffer, delimited(reader), span.attributes, 0);
          break;
        case 10 << 3:
          span.droppedAttributesCount = reader.uint32();
          break;
        case (11 << 3) | LEN:
          span.events.push(pbEvent(reader, buffer, delimited(reader)));
          break;
        case 12 << 3:
          span.droppedEventsCount = reader.uint32();
          break;
        case (13 << 3) | LEN:
          span.links.push(pbLink(reader, buffer, delimited(reader)));
          break;
        case 14 << 3:
          span.droppedLinksCount = reader.uint32();
          break;
        case (15 << 3) | LEN: {
          const statusEnd = delimited(reader);
          while (reader.pos < statusEnd) {
            const statusTag = reader.uint32();
            if (statusTag === ((2 << 3) | LEN)) span.statusMessage = reader.string();
            else if (statusTag === 3 << 3) span.statusCode = reader.int32();
            else skip(reader, statusTag);
          }
          break;
        }
        case (16 << 3) | 5:
          span.flags = reader.fixed32();
          break;
        default:
          skip(reader, tag);
      }
    }
    checkIds(traceId, spanId);
    if (parent !== null && parent.length > 0 && parent.length !== 16) throw new SpanFault('parent_span_id must be 8 bytes');
    checkTimes(start, finish);
    span.traceId = traceId;
    span.spanId = spanId;
    span.parentSpanId = parent === null || parent.length === 0 || isZero(parent) ? null : parent;
    span.startTimeUnixNano = start;
    span.endTimeUnixNano = finish;
    return { span };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    reader.pos = end;
    return { rejected: { ref: spanRef(traceId || null, spanId || null, index), reason: error.message } };
  }
}

/** A Resource or InstrumentationScope: its attributes (field `attributesField`) and the rest. */
function pbEntity(reader: protobuf.Reader, buffer: Buffer, end: number, attributesField: number, read: (tag: number) => boolean): Fields {
  const fields: Fields = { attributes: {}, droppedAttributesCount: 0 };
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((attributesField << 3) | LEN)) pbKeyValue(reader, buffer, delimited(reader), fields.attributes, 0);
    else if (tag === (attributesField + 1) << 3) fields.droppedAttributesCount = reader.uint32();
    else if (!read(tag)) skip(reader, tag);
  }
  return fields;
}

/** The InstrumentationScope up to `end` (its schema URL is its container's, set by the caller). */
export function pbScope(reader: protobuf.Reader, buffer: Buffer, end: number, where: string): OtlpScope {
  let name = '';
  let version = '';
  try {
    const fields = pbEntity(reader, buffer, end, 3, (scopeTag) => {
      if (scopeTag === ((1 << 3) | LEN)) name = reader.string();
      else if (scopeTag === ((2 << 3) | LEN)) version = reader.string();
      else return false;
      return true;
    });
    return { ...fields, name, version, schemaUrl: '' };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
  }
}

/** The Resource up to `end`, its schema URL `schemaUrl` (its container's). */
export function pbResource(reader: protobuf.Reader, buffer: Buffer, end: number, schemaUrl: string, where: string): OtlpResource {
  try {
    return { ...pbEntity(reader, buffer, end, 1, () => false), schemaUrl };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    throw new OtlpBadRequest(`${where}: ${error.message}`);
  }
}

function pbScopeSpans(reader: protobuf.Reader, buffer: Buffer, end: number, where: string): { scope: OtlpScope; spans: DecodedSpan[] } {
  let scope: OtlpScope = { name: '', version: '', attributes: {}, droppedAttributesCount: 0, schemaUrl: '' };
  let schemaUrl = '';
  const spans: DecodedSpan[] = [];
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) scope = pbScope(reader, buffer, delimited(reader), `${where}.scope`);
    else if (tag === ((2 << 3) | LEN)) spans.push(pbSpan(reader, buffer, delimited(reader), `#${spans.length} of ${where}`));
    else if (tag === ((3 << 3) | LEN)) schemaUrl = reader.string();
    else skip(reader, tag);
  }
  scope.schemaUrl = schemaUrl;
  return { scope, spans };
}

function pbResourceSpans(reader: protobuf.Reader, buffer: Buffer, end: number, r: number, groups: OtlpGroup[]): void {
  let resource: OtlpResource = { attributes: {}, droppedAttributesCount: 0, schemaUrl: '' };
  // Scope groups in the order protobufjs gave them: scope_spans, then the deprecated field's.
  const scoped: OtlpGroup[] = [];
  const deprecated: OtlpGroup[] = [];
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === ((1 << 3) | LEN)) resource = pbResource(reader, buffer, delimited(reader), resource.schemaUrl, `resource_spans[${r}].resource`);
    else if (tag === ((2 << 3) | LEN) || tag === ((1000 << 3) | LEN)) {
      const current = tag === ((2 << 3) | LEN);
      const list = current ? scoped : deprecated;
      const where = `resource_spans[${r}].${current ? 'scope_spans' : 'instrumentation_library_spans'}[${list.length}]`;
      list.push({ resource, ...pbScopeSpans(reader, buffer, delimited(reader), where) });
    } else if (tag === ((3 << 3) | LEN)) resource.schemaUrl = reader.string();
    else skip(reader, tag);
  }
  // The resource may follow its scopes on the wire: every group gets the final one.
  for (const group of [...scoped, ...deprecated]) groups.push({ ...group, resource });
}

/**
 * Reads an Export request (`message`: its name, for the 400) whose field 1 is a repeated resource
 * item, each handed to `item` with its bounds and index; anything the wire cannot give is a 400.
 */
export function readExportRequest(
  body: Uint8Array,
  message: string,
  item: (reader: protobuf.Reader, buffer: Buffer, end: number, index: number) => void,
): void {
  // As a Buffer, strings are read with Node's native UTF-8 decoder (a body that crossed to a
  // worker thread arrives as a plain Uint8Array).
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const reader = protobuf.Reader.create(buffer);
  try {
    let index = 0;
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag === ((1 << 3) | LEN)) item(reader, buffer, delimited(reader), index++);
      else skip(reader, tag);
    }
  } catch (error) {
    if (error instanceof OtlpBadRequest) throw error;
    throw new OtlpBadRequest(`the body is not an OTLP ${message} in protobuf: ${(error as Error).message}`);
  }
}

/** An OTLP/protobuf ExportTraceServiceRequest (HTTP body or gRPC message). */
export function decodeProtobuf(body: Uint8Array): OtlpGroup[] {
  const groups: OtlpGroup[] = [];
  readExportRequest(body, 'ExportTraceServiceRequest', (reader, buffer, end, r) => pbResourceSpans(reader, buffer, end, r, groups));
  return groups;
}
