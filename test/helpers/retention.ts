// A project with a retention period, traces stored in it at given start times, and a sweep of it:
// for the tests of what goes with the traces retention deletes (scores, their roll-ups).
import { RetentionSweeper } from '../../src/observability/retention/retention-sweeper.js';
import type { SpanRecord } from '../../src/observability/ingestion/span-record.js';
import { writeSpans } from '../../src/observability/ingestion/span-writer.js';
import { requestContext } from '../../src/shared/context.js';
import type { TestServer } from './server.js';

export async function retentionProject(server: TestServer, name: string, retentionDays = 7) {
  const created = await server.request('POST', '/projects', { name });
  const projectId = created.body.id as string;
  await server.assay.db.project.update({ where: { id: projectId }, data: { retentionDays } });
  const ctx = requestContext(server.assay.services, projectId);
  const root = (traceId: string, start: number): SpanRecord => ({
    traceId,
    spanId: 'r',
    parentSpanId: null,
    name: 'r',
    spanKind: 'CHAIN',
    statusCode: 'OK',
    startTimeUnixNano: BigInt(start) * 1_000_000n,
    endTimeUnixNano: BigInt(start + 1000) * 1_000_000n,
    attributes: {},
  });
  return {
    projectId,
    ctx,
    /** Stores a trace of one span, a second long, for each trace id, starting at its epoch milliseconds. */
    writeTraces: (starts: Record<string, number>) =>
      writeSpans(
        ctx,
        Object.entries(starts).map(([traceId, start]) => root(traceId, start)),
      ),
    /** Retention's sweep of every project as of `now`. */
    sweep: (now: Date) =>
      new RetentionSweeper(server.assay.services, { defaultDays: null, batchSize: 500, partitionsAhead: 3 }, server.assay.server.log).sweep(now),
  };
}
