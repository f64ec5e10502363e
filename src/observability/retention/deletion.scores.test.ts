// Deleting traces deletes their scores (docs/scores.md#deleting): a trace by id, a user's spans, a
// project's expired traces (retention; on PostgreSQL also through dropped day partitions). Scores
// of what stays, and of other projects, stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySpan } from '../../../test/helpers/spans.js';
import { onPostgres, startServer, type TestServer } from '../../../test/helpers/server.js';
import { upsertScores } from '../../scores/operations.js';
import type { ScoreInput } from '../../scores/inputs.js';
import { requestContext } from '../../shared/context.js';
import type { SpanRecord } from '../ingestion/span-record.js';
import { writeSpans } from '../ingestion/span-writer.js';
import { RetentionSweeper } from './retention-sweeper.js';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let projectId: string;

beforeAll(async () => {
  server = await startServer();
  projectId = (await server.assay.db.project.findFirstOrThrow()).id;
});
afterAll(() => server.close());

async function ingest(trace: string, spans: Record<string, unknown>[]) {
  const response = await server.request('POST', '/observability/trace', { trace, spans });
  expect(response.status, response.text).toBe(200);
}

function score(id: string, fields: Partial<ScoreInput>): ScoreInput {
  return { id, name: 'quality', value: 1, ...fields };
}

/** The ids of the project's scores that are left, sorted. */
async function left(project = projectId): Promise<string[]> {
  const rows = await server.assay.db.score.findMany({ where: { projectId: project }, select: { id: true }, orderBy: { id: 'asc' } });
  return rows.map((row) => row.id);
}

function scoresIn(project: string, inputs: ScoreInput[]) {
  return upsertScores(requestContext(server.assay.services, project), inputs);
}

describe('deleting a trace', () => {
  it("deletes the trace's scores and its spans', and nothing else", async () => {
    await ingest('del-t', [legacySpan('r', null, 0, 2), legacySpan('c', 'r', 0.5, 1)]);
    await ingest('keep-t', [legacySpan('r', null, 0, 2)]);
    await scoresIn(projectId, [
      score('del-trace', { trace_id: 'del-t' }),
      score('del-span', { trace_id: 'del-t', span_id: 'c' }),
      score('keep-trace', { trace_id: 'keep-t' }),
      score('keep-same-span-id', { trace_id: 'keep-t', span_id: 'c' }),
      score('keep-session', { session_id: 'del-t' }),
    ]);
    expect((await server.request('DELETE', '/observability/traces/del-t')).status).toBe(204);
    expect(await left()).toEqual(['keep-same-span-id', 'keep-session', 'keep-trace']);
    await server.assay.db.score.deleteMany({ where: { projectId } });
  });
});

describe("deleting a user's spans", () => {
  it("deletes the scores of the traces that go, and of the user's spans in the traces that stay", async () => {
    await ingest('ada-only', [legacySpan('r', null, 0, 2, { user: 'ada' }), legacySpan('c', 'r', 0.5, 1, { user: 'ada' })]);
    await ingest('shared', [legacySpan('r', null, 0, 3, { user: 'ada' }), legacySpan('b', 'r', 0.5, 1, { user: 'bob' })]);
    await scoresIn(projectId, [
      score('ada-trace', { trace_id: 'ada-only' }),
      score('ada-span', { trace_id: 'ada-only', span_id: 'c' }),
      score('shared-trace', { trace_id: 'shared' }),
      score('shared-ada-span', { trace_id: 'shared', span_id: 'r' }),
      score('shared-bob-span', { trace_id: 'shared', span_id: 'b' }),
    ]);
    const deleted = await server.graphql('mutation { deleteUserSpans(userId: "ada") { spans traces } }');
    expect(deleted.data.deleteUserSpans).toEqual({ spans: 3, traces: 1 });
    expect(await left()).toEqual(['shared-bob-span', 'shared-trace']);
    await server.assay.db.score.deleteMany({ where: { projectId } });
  });
});

/** A span of `traceId` from `start` to `end` (ms since the epoch). */
function span(traceId: string, spanId: string, start: number): SpanRecord {
  return {
    traceId,
    spanId,
    parentSpanId: null,
    name: spanId,
    spanKind: 'CHAIN',
    statusCode: 'OK',
    startTimeUnixNano: BigInt(start) * 1_000_000n,
    endTimeUnixNano: BigInt(start + 1000) * 1_000_000n,
    attributes: {},
  };
}

describe('retention', () => {
  it("deletes the expired traces' scores and the project's scores older than its cutoff; other projects keep theirs", async () => {
    const now = Date.now();
    const weekly = (await server.request('POST', '/projects', { name: 'weekly-scores' })).body.id as string;
    await server.assay.db.project.update({ where: { id: weekly }, data: { retentionDays: 7 } });
    const forever = (await server.request('POST', '/projects', { name: 'forever-scores' })).body.id as string;
    for (const project of [weekly, forever]) {
      await writeSpans(requestContext(server.assay.services, project), [span('old', 'r', now - 40 * DAY), span('new', 'r', now - DAY)]);
      await scoresIn(project, [
        score('old-trace', { trace_id: 'old' }),
        score('old-span', { trace_id: 'old', span_id: 'r' }),
        score('new-trace', { trace_id: 'new' }),
        score('old-session', { session_id: 's' }),
        score('new-session', { session_id: 's' }),
        score('never-came', { trace_id: 'never' }),
      ]);
      // Scores written long ago: their creation time is the service's, so the test sets it.
      await server.assay.db.score.updateMany({
        where: { projectId: project, id: { in: ['old-session', 'never-came'] } },
        data: { createdAt: new Date(now - 30 * DAY) },
      });
    }
    const sweeper = new RetentionSweeper(server.assay.services, { defaultDays: null, batchSize: 500, partitionsAhead: 3 }, server.assay.server.log);
    const result = await sweeper.sweep(new Date(now));
    expect(result.traces).toBe(1);
    expect(result.scores).toBe(2);
    expect(await left(weekly)).toEqual(['new-session', 'new-trace']);
    expect(await left(forever)).toEqual(['never-came', 'new-session', 'new-trace', 'old-session', 'old-span', 'old-trace']);
  });

  it.runIf(onPostgres)('deletes the scores of the traces whose day partitions are dropped (PostgreSQL)', async () => {
    const own = await startServer();
    try {
      const now = Date.now();
      const created = await own.request('POST', '/projects', { name: 'partitioned' });
      const project = created.body.id as string;
      await own.assay.db.project.update({ where: { id: project }, data: { retentionDays: 3 } });
      const ctx = requestContext(own.assay.services, project);
      await writeSpans(ctx, [span('ancient', 'r', now - 20 * DAY), span('recent', 'r', now - DAY)]);
      await upsertScores(ctx, [
        score('ancient', { trace_id: 'ancient' }),
        score('ancient-span', { trace_id: 'ancient', span_id: 'r' }),
        score('recent', { trace_id: 'recent' }),
      ]);
      const sweeper = new RetentionSweeper(own.assay.services, { defaultDays: null, batchSize: 500, partitionsAhead: 3 }, own.assay.server.log);
      const result = await sweeper.sweep(new Date(now));
      expect(result.partitionsDropped.length).toBeGreaterThan(0);
      const rows = await own.assay.db.score.findMany({ where: { projectId: project }, select: { id: true } });
      expect(rows.map((row) => row.id)).toEqual(['recent']);
    } finally {
      await own.close();
    }
  });
});
