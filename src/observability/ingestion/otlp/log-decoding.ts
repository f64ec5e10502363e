// OTLP logs (docs/observability.md#otlp-logs): an ExportLogsServiceRequest in protobuf or JSON
// decoded into plain log records, with the value readers of the trace decoders (protobuf-decoding.ts,
// json-decoding.ts). A record is rejected (OTLP partial success) when it names no span (no trace id
// or no span id), when an id has the wrong length, when it has no time at all, or when a value
// nests too deep; the rest of the request goes on.
import type { JsonValue } from '../span-record.js';
import { checkIds, isZero, OtlpBadRequest, SpanFault, type JsonObject, type OtlpResource, type OtlpScope } from './decoded-span.js';
import { field, jsonAttributes, jsonCount, jsonId, jsonList, jsonNanos, jsonResource, jsonScope, jsonString, jsonValue, type Json } from './json-decoding.js';
import { delimited, idHex, LEN, pbKeyValue, pbResource, pbScope, pbValue, readExportRequest, skip, unsigned64 } from './protobuf-decoding.js';
import type protobuf from 'protobufjs';

export interface OtlpLogRecord {
  traceId: string;
  spanId: string;
  /** When the event happened; the observed time when the client sent none. */
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: number;
  severityText: string;
  /** The `event_name` field, else the `event.name` attribute, else "". */
  eventName: string;
  /** null when the record has no body. */
  body: JsonValue;
  attributes: JsonObject;
}

export type DecodedLog = { record: OtlpLogRecord } | { rejected: { ref: string; reason: string } };

export interface OtlpLogGroup {
  resource: OtlpResource;
  scope: OtlpScope;
  records: DecodedLog[];
}

/** SeverityNumber's names, as OTLP/JSON may send them: position is the number. */
const severityNames = [
  'UNSPECIFIED',
  'TRACE',
  'TRACE2',
  'TRACE3',
  'TRACE4',
  'DEBUG',
  'DEBUG2',
  'DEBUG3',
  'DEBUG4',
  'INFO',
  'INFO2',
  'INFO3',
  'INFO4',
  'WARN',
  'WARN2',
  'WARN3',
  'WARN4',
  'ERROR',
  'ERROR2',
  'ERROR3',
  'ERROR4',
  'FATAL',
  'FATAL2',
  'FATAL3',
  'FATAL4',
].map((name) => `SEVERITY_NUMBER_${name}`);

/** The checks both encodings share, on a record whose fields are read. */
function checkedRecord(record: OtlpLogRecord): OtlpLogRecord {
  if (record.traceId === '' || isZero(record.traceId) || record.spanId === '' || isZero(record.spanId)) {
    throw new SpanFault('names no span (trace_id and span_id are required: Assay keeps log records with the span they belong to)');
  }
  checkIds(record.traceId, record.spanId);
  if (record.timeUnixNano === 0n) record.timeUnixNano = record.observedTimeUnixNano;
  if (record.timeUnixNano === 0n) throw new SpanFault('time_unix_nano and observed_time_unix_nano are missing');
  if (record.timeUnixNano >= 2n ** 63n) throw new SpanFault('time is after 2262-04-11');
  if (record.eventName === '' && typeof record.attributes['event.name'] === 'string') record.eventName = record.attributes['event.name'];
  return record;
}

function decoded(index: string, read: () => OtlpLogRecord, ids: () => [string, string]): DecodedLog {
  try {
    return { record: checkedRecord(read()) };
  } catch (error) {
    if (!(error instanceof SpanFault)) throw error;
    const [traceId, spanId] = ids();
    const ref = spanId && traceId ? `log record ${index} (span ${spanId} of trace ${traceId})` : `log record ${index}`;
    return { rejected: { ref, reason: error.message } };
  }
}

/** A LogRecord up to `end` (field numbers of messages.ts), the reader left at `end` whatever happens. */
function pbLogRecord(reader: protobuf.Reader, buffer: Buffer, end: number, index: string): DecodedLog {
  const record: OtlpLogRecord = {
    traceId: '',
    spanId: '',
    timeUnixNano: 0n,
    observedTimeUnixNano: 0n,
    severityNumber: 0,
    severityText: '',
    eventName: '',
    body: null,
    attributes: {},
  };
  const read = () => {
    try {
      while (reader.pos < end) {
        const tag = reader.uint32();
        if (tag === ((1 << 3) | 1)) record.timeUnixNano = unsigned64(reader.fixed64());
        else if (tag === 2 << 3) record.severityNumber = reader.int32();
        else if (tag === ((3 << 3) | LEN)) record.severityText = reader.string();
        else if (tag === ((5 << 3) | LEN)) record.body = pbValue(reader, buffer, delimited(reader), 0);
        else if (tag === ((6 << 3) | LEN)) pbKeyValue(reader, buffer, delimited(reader), record.attributes, 0);
        else if (tag === ((9 << 3) | LEN)) record.traceId = idHex(reader, buffer);
        else if (tag === ((10 << 3) | LEN)) record.spanId = idHex(reader, buffer);
        else if (tag === ((11 << 3) | 1)) record.observedTimeUnixNano = unsigned64(reader.fixed64());
        else if (tag === ((12 << 3) | LEN)) record.eventName = reader.string();
        else skip(reader, tag);
      }
    } finally {
      reader.pos = end;
    }
    return record;
  };
  return decoded(index, read, () => [record.traceId, record.spanId]);
}

/** An OTLP/protobuf ExportLogsServiceRequest (HTTP body or gRPC message). */
export function decodeProtobufLogs(body: Uint8Array): OtlpLogGroup[] {
  const groups: OtlpLogGroup[] = [];
  readExportRequest(body, 'ExportLogsServiceRequest', (reader, buffer, end, r) => {
    let resource: OtlpResource = { attributes: {}, droppedAttributesCount: 0, schemaUrl: '' };
    const scoped: { scope: OtlpScope; records: DecodedLog[] }[] = [];
    while (reader.pos < end) {
      const tag = reader.uint32();
      if (tag === ((1 << 3) | LEN)) resource = pbResource(reader, buffer, delimited(reader), resource.schemaUrl, `resource_logs[${r}].resource`);
      else if (tag === ((2 << 3) | LEN)) {
        const where = `resource_logs[${r}].scope_logs[${scoped.length}]`;
        const scopeEnd = delimited(reader);
        let scope: OtlpScope = { name: '', version: '', attributes: {}, droppedAttributesCount: 0, schemaUrl: '' };
        const records: DecodedLog[] = [];
        while (reader.pos < scopeEnd) {
          const scopeTag = reader.uint32();
          if (scopeTag === ((1 << 3) | LEN)) scope = { ...pbScope(reader, buffer, delimited(reader), `${where}.scope`), schemaUrl: scope.schemaUrl };
          else if (scopeTag === ((2 << 3) | LEN)) records.push(pbLogRecord(reader, buffer, delimited(reader), `#${records.length} of ${where}`));
          else if (scopeTag === ((3 << 3) | LEN)) scope.schemaUrl = reader.string();
          else skip(reader, scopeTag);
        }
        scoped.push({ scope, records });
      } else if (tag === ((3 << 3) | LEN)) resource.schemaUrl = reader.string();
      else skip(reader, tag);
    }
    // The resource may follow its scopes on the wire: every group gets the final one.
    for (const group of scoped) groups.push({ resource, ...group });
  });
  return groups;
}

function jsonSeverity(value: Json): number {
  if (typeof value === 'string' && severityNames.includes(value)) return severityNames.indexOf(value);
  const number = jsonCount(value, 'severity_number');
  if (number >= severityNames.length) throw new SpanFault('severity_number is not a known value');
  return number;
}

/** An OTLP/JSON ExportLogsServiceRequest, already parsed from its text. */
export function decodeJsonLogs(body: Json): OtlpLogGroup[] {
  const bad = (message: string) => new OtlpBadRequest(message);
  if (body === undefined) return [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('the body must be a JSON object (ExportLogsServiceRequest)');
  return jsonList(field(body, 'resourceLogs', 'resource_logs'), 'resourceLogs', bad).flatMap((resourceLogs, r) => {
    const where = `resourceLogs[${r}]`;
    if (resourceLogs === null || typeof resourceLogs !== 'object') throw bad(`${where} must be an object`);
    const resource = jsonResource(resourceLogs, `${where}.resource`);
    return jsonList(field(resourceLogs, 'scopeLogs', 'scope_logs'), `${where}.scopeLogs`, bad).map((scopeLogs, s) => {
      const at = `${where}.scopeLogs[${s}]`;
      if (scopeLogs === null || typeof scopeLogs !== 'object') throw bad(`${at} must be an object`);
      return {
        resource,
        scope: jsonScope(scopeLogs, `${at}.scope`),
        records: jsonList(field(scopeLogs, 'logRecords', 'log_records'), `${at}.logRecords`, bad).map((log, i) => {
          let ids: [string, string] = ['', ''];
          return decoded(
            `#${i} of ${at}`,
            () => {
              if (log === null || typeof log !== 'object' || Array.isArray(log)) throw new SpanFault('a log record must be an object');
              ids = [jsonId(field(log, 'traceId', 'trace_id'), 16, 'trace_id'), jsonId(field(log, 'spanId', 'span_id'), 8, 'span_id')];
              const body = field(log, 'body');
              return {
                traceId: ids[0],
                spanId: ids[1],
                timeUnixNano: jsonNanos(field(log, 'timeUnixNano', 'time_unix_nano'), 'time_unix_nano'),
                observedTimeUnixNano: jsonNanos(field(log, 'observedTimeUnixNano', 'observed_time_unix_nano'), 'observed_time_unix_nano'),
                severityNumber: jsonSeverity(field(log, 'severityNumber', 'severity_number')),
                severityText: jsonString(field(log, 'severityText', 'severity_text'), 'severity_text'),
                eventName: jsonString(field(log, 'eventName', 'event_name'), 'event_name'),
                body: body === undefined ? null : jsonValue(body, 0),
                attributes: jsonAttributes(field(log, 'attributes')),
              };
            },
            () => ids,
          );
        }),
      };
    });
  });
}
