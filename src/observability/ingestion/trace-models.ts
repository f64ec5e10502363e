// The TraceModel roll-up (docs/observability.md#roll-ups): the models each trace's spans name,
// once each, rewritten from all of the trace's stored spans wherever the Trace roll-up is
// (trace-rollups.ts): after every batch the writer stores and after a deletion. The trace filter
// `model` reads it through its index instead of every span of every trace.
import type { RequestContext } from '../../shared/context.js';
import type { SqlValue, Tx } from '../../shared/sql.js';
import { spansWithin } from './trace-rollups.js';

/**
 * Rewrites the models of the traces `ids` (a JSON array) of the caller's project; `range` is
 * `spanRange`'s, which keeps PostgreSQL's read to the partitions holding their spans. `stored`
 * false: the traces are new (span-writer.ts `newTraces`), with no rows to replace.
 */
export async function rollUpTraceModels(ctx: RequestContext, tx: Tx, ids: string, range: readonly SqlValue[], stored = true): Promise<void> {
  const { sql, projectId } = ctx;
  if (stored) await sql.run(tx, `DELETE FROM "TraceModel" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})`, [projectId, ids]);
  await sql.run(
    tx,
    `INSERT INTO "TraceModel" ("projectId", "traceId", "model")
     SELECT DISTINCT "projectId", "traceId", "model" FROM "Span"
     WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND "model" IS NOT NULL${spansWithin(sql, '', null)}`,
    [projectId, ids, ...range],
  );
}
