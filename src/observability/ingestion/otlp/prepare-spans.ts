// The CPU-heavy half of OTLP ingestion: a request body decoded (protobuf or JSON), its spans mapped
// to SpanRecords and their JSON turned into text, ready to store. It runs on the decoding thread
// (decoding-thread.ts), so the serving thread is left with HTTP and the database. Spans that cannot be used are
// named in `rejections`, and the rest of the request goes on (OTLP partial success).
import { packSpanRecord, serializeOwnSpanRecord, sharedJsonText, type PackedSpanRecord, type SerializedSpanRecord } from '../span-record.js';
import { jsonBody, OtlpBadRequest, type OtlpFormat, type OtlpGroup } from './decoded-span.js';
import { decodeJson } from './json-decoding.js';
import { prepareLogs, type PreparedLogs } from './prepare-logs.js';
import { decodeProtobuf } from './protobuf-decoding.js';
import { otlpSpanRecord, resourceJson, scopeJson } from './span-mapping.js';

export interface PreparedOtlp {
  records: SerializedSpanRecord[];
  /** "<span ref>: <reason>" per rejected span. */
  rejections: string[];
}

export function prepareGroups(groups: readonly OtlpGroup[]): PreparedOtlp {
  const records: SerializedSpanRecord[] = [];
  const rejections: string[] = [];
  const text = sharedJsonText();
  for (const group of groups) {
    const resource = resourceJson(group.resource);
    const scope = scopeJson(group.scope);
    for (const decoded of group.spans) {
      if ('rejected' in decoded) {
        rejections.push(`${decoded.rejected.ref}: ${decoded.rejected.reason}`);
        continue;
      }
      try {
        records.push(serializeOwnSpanRecord(otlpSpanRecord(decoded.span, group.resource, resource, scope), text));
      } catch (error) {
        // The mapper reads whatever a client sent; a span it cannot read is refused, not a 500.
        rejections.push(`span ${decoded.span.spanId} of trace ${decoded.span.traceId}: could not be mapped (${(error as Error).message})`);
      }
    }
  }
  return { records, rejections };
}

/** Decodes and prepares a (decompressed) body; throws OtlpBadRequest when it cannot be read at all. */
export function prepareOtlp(format: OtlpFormat, body: Uint8Array): PreparedOtlp {
  return prepareGroups(format === 'protobuf' ? decodeProtobuf(body) : decodeJson(jsonBody(body)));
}

/** What an OTLP body exports: spans (`/v1/traces`, TraceService) or log records (`/v1/logs`, LogsService). */
export type OtlpSignal = 'traces' | 'logs';

/**
 * What the decoding thread answers for one body (decoding-thread.ts): the spans (packed, for the
 * crossing: span-record.ts `packSpanRecord`) or log records, or why the body was refused.
 */
export type PrepareReply =
  { packed: { records: PackedSpanRecord[]; rejections: string[] } } | { logs: PreparedLogs } | { error: { message: string; badRequest: boolean } };

export function prepareReply(signal: OtlpSignal, format: OtlpFormat, body: Uint8Array): PrepareReply {
  try {
    if (signal === 'logs') return { logs: prepareLogs(format, body) };
    const { records, rejections } = prepareOtlp(format, body);
    return { packed: { records: records.map(packSpanRecord), rejections } };
  } catch (error) {
    return { error: { message: (error as Error).message, badRequest: error instanceof OtlpBadRequest } };
  }
}
