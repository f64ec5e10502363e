// The CPU-heavy half of OTLP log ingestion, on the decoding thread as for spans (prepare-spans.ts): a
// request body decoded (log-decoding.ts) into rows of SpanLogRecord, each with the id that makes a
// retried export store it once, their JSON already text.
import { createHash } from 'node:crypto';
import { jsonText } from '../../../shared/sql.js';
import type { SpanLogRow } from '../log-join.js';
import { sharedJsonText } from '../span-record.js';
import { jsonBody, type OtlpFormat } from './decoded-span.js';
import { decodeJsonLogs, decodeProtobufLogs, type OtlpLogGroup } from './log-decoding.js';
import { resourceJson, scopeJson } from './span-mapping.js';

export interface PreparedLogs {
  rows: SpanLogRow[];
  /** "<record ref>: <reason>" per rejected log record. */
  rejections: string[];
}

export function prepareLogGroups(groups: readonly OtlpLogGroup[]): PreparedLogs {
  const rows: SpanLogRow[] = [];
  const rejections: string[] = [];
  const text = sharedJsonText();
  for (const group of groups) {
    const resource = text(resourceJson(group.resource));
    const scope = text(scopeJson(group.scope));
    for (const decoded of group.records) {
      if ('rejected' in decoded) {
        rejections.push(`${decoded.rejected.ref}: ${decoded.rejected.reason}`);
        continue;
      }
      const log = decoded.record;
      const body = jsonText(log.body);
      const attributes = jsonText(log.attributes) ?? '{}';
      const what = [String(log.timeUnixNano), String(log.observedTimeUnixNano), log.eventName, log.severityNumber, log.severityText, body, attributes];
      rows.push({
        traceId: log.traceId,
        spanId: log.spanId,
        recordId: createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 32),
        timeUnixNano: log.timeUnixNano,
        observedTimeUnixNano: log.observedTimeUnixNano,
        position: rows.length,
        eventName: log.eventName,
        severityNumber: log.severityNumber,
        severityText: log.severityText || null,
        body,
        attributes,
        resource,
        scope,
      });
    }
  }
  return { rows, rejections };
}

/** Decodes and prepares a (decompressed) logs body; throws OtlpBadRequest when it cannot be read at all. */
export function prepareLogs(format: OtlpFormat, body: Uint8Array): PreparedLogs {
  return prepareLogGroups(format === 'protobuf' ? decodeProtobufLogs(body) : decodeJsonLogs(jsonBody(body)));
}
