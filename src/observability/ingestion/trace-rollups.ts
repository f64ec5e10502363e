// The Trace roll-ups: each trace's sums, root and summary fields, recomputed in one statement from
// all of its stored spans. The writer (span-writer.ts) runs it after every batch, and deletion
// (retention/deletion.ts) after taking spans away. The SQL runs on SQLite and PostgreSQL alike; the
// few places the two differ (the parent look-up, the partition bounds) are spelled per provider.
import type { RequestContext } from '../../shared/context.js';
import { costSumSql } from '../../shared/money.js';
import type { BulkSql, SqlValue, Tx } from '../../shared/sql.js';

// The roll-ups of a batch's traces, each recomputed from all its stored spans, in one statement
// (the trace ids come as one JSON array parameter). The root is the earliest top-level span: no
// parent, its own parent, or a parent never stored. Only spans that start no later than the
// earliest parentless one can be that root, so the parent look-up runs for those few rather than
// for every span of a large trace. A trace whose spans all sit in a parent cycle (a faulty
// client) falls back to its earliest span. The root is found in a step of its own (a
// materialised CTE), once per trace: PostgreSQL would otherwise test it as a join condition, once
// per span of the trace. A trace's session is its root's, else one a span below names (an AI SDK
// call inside an app's own span names it there; docs/sessions.md#session-ids).
// `WHERE true` is SQLite's documented way to parse an upsert after INSERT … SELECT … JOIN.
/**
 * Whether span `s`'s parent is missing from its trace (`agg`). SQLite looks each parent up by the
 * primary key; PostgreSQL hashes the trace's span ids once (NOT IN), a plan it takes even on a
 * young table without statistics, where it otherwise picked the smaller parent index and scanned
 * the trace per span (docs/database.md#raw-sql).
 */
function parentMissing(sql: BulkSql): string {
  return sql.provider === 'postgresql'
    ? `s."parentSpanId" NOT IN (SELECT p."spanId" FROM "Span" AS p WHERE p."projectId" = agg."projectId" AND p."traceId" = agg."traceId"${spansWithin(sql, 'p.', 'agg')})`
    : `NOT EXISTS (SELECT 1 FROM "Span" AS p WHERE p."projectId" = s."projectId" AND p."traceId" = s."traceId" AND p."spanId" = s."parentSpanId")`;
}

/**
 * On PostgreSQL, where "Span" is partitioned by start time (docs/database.md#span-partitions): the
 * bounds that keep a read of these traces' spans to the partitions holding them. `agg` bounds the
 * spans of its trace; `null` takes them from two `?` parameters (`spanRange`).
 */
export function spansWithin(sql: BulkSql, alias: string, agg: string | null): string {
  if (sql.provider !== 'postgresql') return '';
  const [from, to] = agg ? [`${agg}."startTime"`, `${agg}."endTime"`] : ['?::timestamp(3)', '?::timestamp(3)'];
  return ` AND ${alias}"startTime" >= ${from} AND ${alias}"startTime" <= ${to}`;
}

/**
 * A span's start and id as one text that sorts by start time (then id): the earliest span naming a
 * variant is found by MIN over it in the same pass as the sums, and its id taken back from
 * character 21 on. A trace's variant, revision and app are that span's (a Langfuse generation
 * given a prompt sits below the root; docs/observability.md#traces-of-a-revision).
 */
function spanKey(sql: BulkSql): string {
  return sql.provider === 'postgresql' ? `lpad("startTimeUnixNano"::text, 20, '0') || "spanId"` : `printf('%020d', "startTimeUnixNano") || "spanId"`;
}

export const rollUpTracesSql = (sql: BulkSql) => `
WITH agg AS MATERIALIZED (
  SELECT "projectId", "traceId",
    MIN("startTime") AS "startTime", MAX("endTime") AS "endTime",
    MIN("startTimeUnixNano") AS "startNano", MAX("endTimeUnixNano") AS "endNano",
    COUNT(*) AS "spanCount",
    SUM(CASE WHEN "statusCode" = 'ERROR' THEN 1 ELSE 0 END) AS "errorCount",
    SUM("promptTokens") AS "promptTokens", SUM("completionTokens") AS "completionTokens",
    SUM("totalTokens") AS "totalTokens", ${costSumSql('"cost"', sql)} AS "cost",
    MIN(CASE WHEN "parentSpanId" IS NULL THEN "startTimeUnixNano" END) AS "firstParentless",
    MIN("sessionId") AS "anySessionId",
    MIN(CASE WHEN "variantId" IS NOT NULL OR "variantName" IS NOT NULL THEN ${spanKey(sql)} END) AS "variantKey"
  FROM "Span"
  WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})${spansWithin(sql, '', null)}
  GROUP BY "projectId", "traceId"
),
rooted AS MATERIALIZED (
  SELECT agg.*, COALESCE(
    (
      SELECT s."spanId" FROM "Span" AS s
      WHERE s."projectId" = agg."projectId" AND s."traceId" = agg."traceId"${spansWithin(sql, 's.', 'agg')} AND (
        s."parentSpanId" IS NULL OR (
          s."startTimeUnixNano" <= COALESCE(agg."firstParentless", s."startTimeUnixNano")
          AND (s."parentSpanId" = s."spanId" OR ${parentMissing(sql)})
        )
      )
      ORDER BY s."startTimeUnixNano", s."spanId"
      LIMIT 1
    ),
    (
      SELECT s."spanId" FROM "Span" AS s
      WHERE s."projectId" = agg."projectId" AND s."traceId" = agg."traceId"${spansWithin(sql, 's.', 'agg')}
      ORDER BY s."startTimeUnixNano", s."spanId"
      LIMIT 1
    )
  ) AS "rootId"
  FROM agg
)
INSERT INTO "Trace" ("projectId", "traceId", "rootSpanId", "name", "startTime", "endTime", "latency",
  "spanCount", "errorCount", "promptTokens", "completionTokens", "totalTokens", "cost", "spanKind", "statusCode",
  "environment", "userId", "sessionId", "appId", "variantId", "variantName", "variantRevision", "createdAt", "updatedAt")
SELECT agg."projectId", agg."traceId", root."spanId", root."name", agg."startTime", agg."endTime",
  (agg."endNano" - agg."startNano") / 1e9,
  agg."spanCount", agg."errorCount", agg."promptTokens", agg."completionTokens", agg."totalTokens", agg."cost",
  root."spanKind", CASE WHEN agg."errorCount" > 0 THEN 'ERROR' ELSE root."statusCode" END,
  root."environment", root."userId", COALESCE(root."sessionId", agg."anySessionId"), COALESCE(named."appId", root."appId"),
  named."variantId", named."variantName", named."variantRevision", ${sql.timestamp('?')}, ${sql.timestamp('?')}
FROM rooted AS agg
LEFT JOIN "Span" AS root ON root."projectId" = agg."projectId" AND root."traceId" = agg."traceId" AND root."spanId" = agg."rootId"${spansWithin(sql, 'root.', 'agg')}
LEFT JOIN "Span" AS named ON named."projectId" = agg."projectId" AND named."traceId" = agg."traceId"
  AND named."spanId" = substr(agg."variantKey", 21)${spansWithin(sql, 'named.', 'agg')}
WHERE true
ON CONFLICT ("projectId", "traceId") DO UPDATE SET
  "rootSpanId" = excluded."rootSpanId", "name" = excluded."name",
  "startTime" = excluded."startTime", "endTime" = excluded."endTime", "latency" = excluded."latency",
  "spanCount" = excluded."spanCount", "errorCount" = excluded."errorCount",
  "promptTokens" = excluded."promptTokens", "completionTokens" = excluded."completionTokens",
  "totalTokens" = excluded."totalTokens", "cost" = excluded."cost",
  "spanKind" = excluded."spanKind", "statusCode" = excluded."statusCode", "variantName" = excluded."variantName",
  "environment" = excluded."environment", "userId" = excluded."userId", "sessionId" = excluded."sessionId",
  "appId" = excluded."appId", "variantId" = excluded."variantId", "variantRevision" = excluded."variantRevision",
  "updatedAt" = excluded."updatedAt"`;

/**
 * PostgreSQL: where the spans of `ids` (a JSON array) lie in "Span", from their traces' roll-ups
 * (`stored`), widened to the start times of spans about to be written (`range`: the parameters
 * of `spansWithin`). Nothing on SQLite, whose table is not partitioned.
 */
export async function spanRange(
  ctx: RequestContext,
  tx: Tx,
  ids: string,
  batch: { first: string; last: string } | null,
): Promise<{ stored: [string, string] | null; range: SqlValue[] }> {
  if (ctx.sql.provider !== 'postgresql') return { stored: null, range: [] };
  const [row] = await ctx.sql.query<{ from: string | null; to: string | null; first: string | null; last: string | null }>(
    tx,
    `SELECT MIN("startTime")::text AS "from", MAX("endTime")::text AS "to",
       LEAST(MIN("startTime"), ?::timestamp(3))::text AS "first", GREATEST(MAX("endTime"), ?::timestamp(3))::text AS "last"
     FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${ctx.sql.jsonValues('?')})`,
    [batch?.first ?? null, batch?.last ?? null, ctx.projectId, ids],
  );
  return { stored: row?.from && row.to ? [row.from, row.to] : null, range: [row?.first ?? null, row?.last ?? null] };
}
