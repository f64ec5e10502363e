// The trace's start and environment kept on its scores (docs/scores.md#in-the-trace-list): the
// database's triggers keep them through every write of either table, and the trace list's score
// figures over a filter of time and environment alone, read from the scores without the traces,
// equal those the join with the traces gives (the same filter with `minLatency: 0`, which keeps
// every trace here but takes the join). Each step below changes one thing, then both are checked.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionProject } from '../../../test/helpers/retention.js';
import { onPostgres, startServer, type TestServer } from '../../../test/helpers/server.js';
import { legacySpan } from '../../../test/helpers/spans.js';
import type { ScoreInput } from '../../scores/inputs.js';
import { deleteScore, storeScores, upsertScores } from '../../scores/operations.js';
import { requestContext, type RequestContext } from '../../shared/context.js';
import { EVALUATION_ENVIRONMENT } from '../ingestion/span-record.js';

const DAY = 24 * 60 * 60 * 1000;

let server: TestServer;
let ctx: RequestContext;

beforeAll(async () => {
  server = await startServer();
  ctx = requestContext(server.assay.services, (await server.assay.db.project.findFirstOrThrow()).id);
});
afterAll(() => server.close());

async function ingest(trace: string, spans: Record<string, unknown>[]) {
  const response = await server.request('POST', '/observability/trace', { trace, spans });
  expect(response.status, response.text).toBe(200);
}

const score = (id: string, trace_id: string, name: string, value: ScoreInput['value'], more: Partial<ScoreInput> = {}): ScoreInput => ({
  id,
  trace_id,
  name,
  value,
  ...more,
});

/** Every score of `projectId` naming a trace carries that trace's start and environment, or nulls when the trace is not stored. */
async function expectKept(projectId = ctx.projectId) {
  const scores = await server.assay.db.score.findMany({ where: { projectId, traceId: { not: null } } });
  const traces = new Map(
    (await server.assay.db.trace.findMany({ where: { projectId }, select: { traceId: true, startTime: true, environment: true } })).map((trace) => [
      trace.traceId,
      trace,
    ]),
  );
  const kept = scores.map((row) => ({ id: row.id, start: row.traceStart?.toISOString() ?? null, environment: row.traceEnvironment }));
  const expected = scores.map((row) => {
    const trace = traces.get(row.traceId!);
    return { id: row.id, start: trace?.startTime.toISOString() ?? null, environment: trace ? trace.environment : null };
  });
  expect(kept).toEqual(expected);
  return scores.length;
}

const figuresQuery = (args: string) => `{
  scoreSummary(names: ["quality", "thumbs"]${args}) { name dataType count mean stddev interval { low high } labels { label count } }
  traceSeries(buckets: 7, scoreNames: ["quality", "thumbs"]${args}) { start count scores { name count mean } }
}`;

/** The score figures over `args` (GraphQL arguments) read from the scores alone equal those through the traces. */
async function expectSameFigures(args = '') {
  const alone = await server.graphql(figuresQuery(args));
  const joined = await server.graphql(figuresQuery(`${args}, minLatency: 0`));
  expect(alone.errors).toBeUndefined();
  expect(joined.errors).toBeUndefined();
  // Sums may differ in the last bits with the order of additions.
  const rounded = (value: unknown) => JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v)));
  expect(rounded(alone.data)).toEqual(rounded(joined.data));
  return alone.data as {
    scoreSummary: { name: string; count: number; mean: number | null }[];
    traceSeries: { count: number; scores: { name: string; count: number; mean: number }[] }[];
  };
}

const counts = (data: Awaited<ReturnType<typeof expectSameFigures>>) => Object.fromEntries(data.scoreSummary.map((summary) => [summary.name, summary.count]));

describe("the trace's start on its scores", () => {
  it('comes with a score written before its trace when the trace arrives, through each way of writing scores', async () => {
    await upsertScores(ctx, [score('early-q', 'early', 'quality', 0.25), score('early-t', 'early', 'thumbs', true)]);
    expect(await storeScores(ctx, [score('early-stored', 'early', 'quality', 0.75)])).toEqual([null]);
    expect(await expectKept()).toBe(3);
    expect(counts(await expectSameFigures())).toEqual({});
    await ingest('early', [legacySpan('r', null, 60, 61, { environment: 'production' })]);
    expect(await expectKept()).toBe(3);
    expect(counts(await expectSameFigures())).toEqual({ quality: 2, thumbs: 1 });
  });

  it('is taken from the stored trace by a score written after it, on the trace and on its spans', async () => {
    await ingest('after', [legacySpan('r', null, 120, 122), legacySpan('c', 'r', 120.5, 121)]);
    await ingest('staged', [legacySpan('r', null, 180, 181, { environment: 'staging' })]);
    await upsertScores(ctx, [
      score('after-q', 'after', 'quality', 0.5),
      score('after-span-q', 'after', 'quality', 0.1, { span_id: 'c' }),
      score('after-t', 'after', 'thumbs', false),
      score('staged-q', 'staged', 'quality', 1),
    ]);
    expect(await expectKept()).toBe(7);
    expect(counts(await expectSameFigures())).toEqual({ quality: 5, thumbs: 2 });
    expect(counts(await expectSameFigures(', environment: "staging"'))).toEqual({ quality: 1 });
  });

  it('follows the trace when an earlier span arrives later, and when its environment changes', async () => {
    const before = await server.assay.db.trace.findUniqueOrThrow({ where: { projectId_traceId: { projectId: ctx.projectId, traceId: 'after' } } });
    // A new root, earlier than the stored one: the trace now starts at 100 s, in staging.
    await ingest('after', [legacySpan('r0', null, 100, 130, { environment: 'staging' }), legacySpan('r', 'r0', 120, 122)]);
    const moved = await server.assay.db.trace.findUniqueOrThrow({ where: { projectId_traceId: { projectId: ctx.projectId, traceId: 'after' } } });
    expect(moved.startTime.getTime()).toBeLessThan(before.startTime.getTime());
    expect(moved.environment).toBe('staging');
    expect(await expectKept()).toBe(7);
    expect(counts(await expectSameFigures(', environment: "staging"'))).toEqual({ quality: 3, thumbs: 1 });
    // A time range that keeps "after" only by its new start.
    const from = new Date(moved.startTime.getTime() - 1000).toISOString();
    const to = new Date(moved.startTime.getTime() + 1000).toISOString();
    expect(counts(await expectSameFigures(`, startedAfter: "${from}", startedBefore: "${to}"`))).toEqual({ quality: 2, thumbs: 1 });
  });

  it('stays through an upsert of the same score and goes with a deleted score', async () => {
    await upsertScores(ctx, [score('after-q', 'after', 'quality', 0.9)]);
    expect(await expectKept()).toBe(7);
    const upserted = await expectSameFigures();
    expect(upserted.scoreSummary.find((summary) => summary.name === 'quality')?.mean).toBeCloseTo((0.25 + 0.75 + 0.9 + 0.1 + 1) / 5, 12);
    await deleteScore(ctx, 'after-span-q');
    expect(await expectKept()).toBe(6);
    expect(counts(await expectSameFigures())).toEqual({ quality: 4, thumbs: 2 });
  });

  it("leaves Assay's own evaluation traces out unless asked for, as the traces' filter does", async () => {
    await ingest('evaluated', [legacySpan('r', null, 240, 241, { environment: EVALUATION_ENVIRONMENT })]);
    await upsertScores(ctx, [score('evaluated-q', 'evaluated', 'quality', 0)]);
    expect(await expectKept()).toBe(7);
    expect(counts(await expectSameFigures())).toEqual({ quality: 4, thumbs: 2 });
    expect(counts(await expectSameFigures(', includeEvaluations: true'))).toEqual({ quality: 5, thumbs: 2 });
    expect(counts(await expectSameFigures(`, environment: "${EVALUATION_ENVIRONMENT}"`))).toEqual({ quality: 1 });
  });

  it('is taken away when the trace is deleted: a score written for it later has none', async () => {
    expect((await server.request('DELETE', '/observability/traces/evaluated')).status).toBe(204);
    await upsertScores(ctx, [score('gone-q', 'evaluated', 'quality', 0.5)]);
    expect(await expectKept()).toBe(7);
    expect(counts(await expectSameFigures(', includeEvaluations: true'))).toEqual({ quality: 4, thumbs: 2 });
  });

  it("follows a trace whose earliest span goes with its user's, and goes with a trace that goes whole", async () => {
    await ingest('shared', [legacySpan('r', null, 300, 310, { user: 'ada' }), legacySpan('b', 'r', 305, 306, { user: 'bob' })]);
    await ingest('ada-only', [legacySpan('r', null, 320, 321, { user: 'ada' })]);
    await upsertScores(ctx, [score('shared-q', 'shared', 'quality', 0.3), score('ada-q', 'ada-only', 'quality', 0.6)]);
    expect(await expectKept()).toBe(9);
    const deleted = await server.graphql('mutation { deleteUserSpans(userId: "ada") { spans traces } }');
    expect(deleted.data.deleteUserSpans).toEqual({ spans: 2, traces: 1 });
    // "shared" now starts at bob's span, 5 s later.
    const shared = await server.assay.db.trace.findUniqueOrThrow({ where: { projectId_traceId: { projectId: ctx.projectId, traceId: 'shared' } } });
    const kept = await server.assay.db.score.findUniqueOrThrow({ where: { projectId_id: { projectId: ctx.projectId, id: 'shared-q' } } });
    expect(kept.traceStart?.toISOString()).toBe(shared.startTime.toISOString());
    expect(await expectKept()).toBe(8);
    expect(counts(await expectSameFigures())).toEqual({ quality: 5, thumbs: 2 });
  });

  it('goes with the traces retention deletes', async () => {
    const now = Date.now();
    const { projectId, ctx: project, writeTraces, sweep } = await retentionProject(server, 'trace-times-retention');
    await writeTraces({ old: now - 40 * DAY, new: now - DAY });
    await upsertScores(project, [score('old-q', 'old', 'quality', 1), score('new-q', 'new', 'quality', 0)]);
    expect(await expectKept(projectId)).toBe(2);
    expect((await sweep(new Date(now))).traces).toBe(1);
    // A score of the expired trace written again after the sweep: its trace is gone.
    await upsertScores(project, [score('old-q', 'old', 'quality', 1)]);
    expect(await expectKept(projectId)).toBe(2);
    const [stored] = await server.assay.db.score.findMany({ where: { projectId, id: 'old-q' } });
    expect(stored.traceStart).toBeNull();
  });

  it.runIf(onPostgres)('is right for a score and its trace written at once (PostgreSQL)', async () => {
    // Each pair races: the trace's first batch and its score, in separate transactions.
    for (let i = 0; i < 20; i++) {
      await Promise.all([
        ingest(`race-${i}`, [legacySpan('r', null, 400 + i, 401 + i)]),
        upsertScores(ctx, [score(`race-q-${i}`, `race-${i}`, 'quality', i / 20)]),
      ]);
    }
    expect(await expectKept()).toBe(28);
    await expectSameFigures();
  });

  it.runIf(onPostgres)("lets a score write wait for a batch moving its trace's start, without a deadlock (PostgreSQL)", async () => {
    // Both ways of writing scores: one statement of its own (Langfuse's ingestion), and inside a transaction.
    const writers = [storeScores, upsertScores] as const;
    for (const [i, write] of writers.entries()) {
      const trace = `lock-${i}`;
      await ingest(trace, [legacySpan('a', null, 500, 501)]);
      await write(ctx, [score(`lock-q-${i}`, trace, 'quality', 0.1)]);
      // An ingestion batch of the trace: its lock held, then an earlier span moves the trace's
      // start, whose trigger rewrites the trace's scores, while a write that changes one of them
      // and adds another waits. Taken the other way round (the changed row locked before the
      // trace), the two waited for each other until PostgreSQL failed one
      // (docs/scores.md#in-the-trace-list).
      let lockTaken!: () => void;
      const taken = new Promise<void>((resolve) => (lockTaken = resolve));
      let moveStart!: () => void;
      const moved = new Promise<void>((resolve) => (moveStart = resolve));
      const batch = server.assay.db.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', `trace:${ctx.projectId}:${trace}`);
          lockTaken();
          await moved;
          await tx.$executeRawUnsafe(
            `UPDATE "Trace" SET "startTime" = "startTime" - interval '1 hour' WHERE "projectId" = $1 AND "traceId" = $2`,
            ctx.projectId,
            trace,
          );
        },
        { timeout: 20_000 },
      );
      await taken;
      const written = write(ctx, [score(`lock-q-${i}`, trace, 'quality', 0.2), score(`lock-n-${i}`, trace, 'quality', 0.3)]);
      await sleep(300);
      moveStart();
      await batch;
      await expect(written).resolves.toHaveLength(2);
    }
    await expectKept();
  });
});
