// The write path of OTLP log records (docs/observability.md#otlp-logs), and their side of the span
// writer's. Records are kept in SpanLogRecord, whether or not their span is stored yet, and the
// stored spans they name are joined with all of their records again (log-join.ts), in the same
// transaction under the traces' locks. The span writer (span-writer.ts) joins each span it writes
// with the records already kept, under the same locks: so whichever of a span and its records
// commits second sees the other, and neither is ever lost.
import type { RequestContext } from '../../shared/context.js';
import { jsonText, sqlDate, type SqlValue, traceLockKeys, type Tx } from '../../shared/sql.js';
import { joinLogRecords, ownFields, type JoinedFields, type JoinedLogRecord, type SpanLogRow } from './log-join.js';
import type { JsonValue, SerializedSpanRecord } from './span-record.js';

const logColumns = [
  'projectId',
  'traceId',
  'spanId',
  'recordId',
  'timeUnixNano',
  'observedTimeUnixNano',
  'position',
  'eventName',
  'severityNumber',
  'severityText',
  'body',
  'attributes',
  'resource',
  'scope',
  'createdAt',
] as const;

export interface LogWriteSummary {
  /** Distinct log records taken (a record sent again counts, and is stored once). */
  records: number;
  /** The traces whose stored spans were joined with them. */
  traceIds: string[];
}

const spanKey = (traceId: string, spanId: string) => `${traceId} ${spanId}`;

/** The JSON array parameters that select the rows of these spans: their traces, and their "trace span" keys. */
function keysOf(spans: readonly { traceId: string; spanId: string }[]): [string, string] {
  return [JSON.stringify([...new Set(spans.map((span) => span.traceId))]), JSON.stringify(spans.map((span) => spanKey(span.traceId, span.spanId)))];
}

const parse = (text: string | null): JsonValue => (text === null ? null : (JSON.parse(text) as JsonValue));

interface LogRecordRow {
  traceId: string;
  spanId: string;
  time: string;
  position: number | bigint;
  eventName: string;
  severityNumber: number | bigint;
  severityText: string | null;
  body: string | null;
  attributes: string;
}

/** Every stored log record of `spans`, by span key. */
async function logRecordsOf(ctx: RequestContext, tx: Tx, spans: readonly { traceId: string; spanId: string }[]): Promise<Map<string, JoinedLogRecord[]>> {
  const { sql } = ctx;
  const read = `SELECT "traceId", "spanId", CAST("timeUnixNano" AS TEXT) AS "time", "position", "eventName", "severityNumber", "severityText",
       CAST("body" AS TEXT) AS "body", CAST("attributes" AS TEXT) AS "attributes"
     FROM "SpanLogRecord"
     WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND ("traceId" || ' ' || "spanId") IN (${sql.jsonValues('?')})`;
  const params = [ctx.projectId, ...keysOf(spans)];
  // Every span batch asks, and nearly always finds nothing: on SQLite a prepared statement on the
  // transaction's own connection answers, not Prisma's query pipeline, which cost the serving
  // thread more than the read (docs/observability.md#the-services-cpu-by-thread-2026-11-28).
  const rows = await (sql.provider === 'sqlite' ? sql.all<LogRecordRow>(read, params) : sql.query<LogRecordRow>(tx, read, params));
  const bySpan = new Map<string, JoinedLogRecord[]>();
  for (const row of rows) {
    const key = spanKey(row.traceId, row.spanId);
    let list = bySpan.get(key);
    if (!list) bySpan.set(key, (list = []));
    list.push({
      timeUnixNano: BigInt(row.time),
      position: Number(row.position),
      eventName: row.eventName,
      severityNumber: Number(row.severityNumber),
      severityText: row.severityText,
      body: parse(row.body),
      attributes: parse(row.attributes) as JoinedLogRecord['attributes'],
    });
  }
  return bySpan;
}

const fieldsOf = (row: { inputs: string | null; outputs: string | null; internals: string | null; events: string | null }): JoinedFields => ({
  inputs: parse(row.inputs),
  outputs: parse(row.outputs),
  internals: parse(row.internals),
  events: parse(row.events),
});

/**
 * The span writer's side, inside its transaction and under its traces' locks: each span of the
 * batch that has log records is joined with them (its JSON fields are text: they are parsed and
 * written again, for those spans only).
 */
export async function joinWithLogRecords(ctx: RequestContext, tx: Tx, spans: readonly SerializedSpanRecord[]): Promise<void> {
  const logs = await logRecordsOf(ctx, tx, spans);
  if (logs.size === 0) return;
  for (const span of spans) {
    const records = logs.get(spanKey(span.traceId, span.spanId));
    if (!records) continue;
    const joined = joinLogRecords(ownFields(fieldsOf(span)), records);
    span.inputs = jsonText(joined.inputs);
    span.outputs = jsonText(joined.outputs);
    span.internals = jsonText(joined.internals);
    span.events = jsonText(joined.events);
  }
}

/**
 * Stores log records in the caller's project in one transaction (a record already stored is
 * kept), then joins every stored span they name with all of its records. Answered once committed.
 */
export async function writeLogRecords(ctx: RequestContext, rows: readonly SpanLogRow[]): Promise<LogWriteSummary> {
  if (rows.length === 0) return { records: 0, traceIds: [] };
  const { sql, projectId } = ctx;
  const unique = new Map<string, SpanLogRow>();
  for (const row of rows) unique.set(`${row.traceId} ${row.spanId} ${row.recordId}`, row);
  const records = [...unique.values()];
  const traceIds = [...new Set(records.map((row) => row.traceId))];
  const summary = await sql.transaction(async (tx) => {
    await sql.lockKeys(tx, traceLockKeys(projectId, traceIds));
    const now = sqlDate(new Date());
    await sql.insertRows(
      tx,
      'SpanLogRecord',
      logColumns,
      records.map((row): SqlValue[] => [
        projectId,
        row.traceId,
        row.spanId,
        row.recordId,
        row.timeUnixNano,
        row.observedTimeUnixNano,
        row.position,
        row.eventName,
        row.severityNumber,
        row.severityText,
        row.body,
        row.attributes,
        row.resource,
        row.scope,
        now,
      ]),
      'ON CONFLICT ("projectId", "traceId", "spanId", "recordId") DO NOTHING',
    );
    const named = [...new Map(records.map((row) => [spanKey(row.traceId, row.spanId), row])).values()];
    const spans = await sql.query<{
      traceId: string;
      spanId: string;
      inputs: string | null;
      outputs: string | null;
      internals: string | null;
      events: string | null;
    }>(
      tx,
      `SELECT "traceId", "spanId", CAST("inputs" AS TEXT) AS "inputs", CAST("outputs" AS TEXT) AS "outputs",
         CAST("internals" AS TEXT) AS "internals", CAST("events" AS TEXT) AS "events"
       FROM "Span"
       WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND ("traceId" || ' ' || "spanId") IN (${sql.jsonValues('?')})`,
      [projectId, ...keysOf(named)],
    );
    const logs = spans.length > 0 ? await logRecordsOf(ctx, tx, spans) : new Map<string, JoinedLogRecord[]>();
    for (const span of spans) {
      const joined = joinLogRecords(ownFields(fieldsOf(span)), logs.get(spanKey(span.traceId, span.spanId)) ?? []);
      await sql.run(
        tx,
        `UPDATE "Span" SET "inputs" = ?, "outputs" = ?, "internals" = ?, "events" = ? WHERE "projectId" = ? AND "traceId" = ? AND "spanId" = ?`,
        [jsonText(joined.inputs), jsonText(joined.outputs), jsonText(joined.internals), jsonText(joined.events), projectId, span.traceId, span.spanId],
      );
    }
    return { records: records.length, traceIds: [...new Set(spans.map((span) => span.traceId))] };
  });
  // The spans shown changed: live trace lists read them again (docs/ui.md#live-updates).
  if (summary.traceIds.length > 0) ctx.events.publish('traces:stored', projectId, summary.traceIds);
  return summary;
}
