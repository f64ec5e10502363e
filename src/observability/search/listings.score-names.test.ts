// The names of a trace's scores kept on its row (`Trace.scoreNames`, docs/observability.md#roll-ups):
// the database's triggers keep them through every write of either table, and the trace list's
// "has (no) score of a name", which tests them, keeps the traces the scores themselves say. Each
// step below changes one thing, then both are checked against the Score table.
import { beforeAll, describe, expect, it } from 'vitest';
import { retentionProject } from '../../../test/helpers/retention.js';
import { onPostgres, useTestServer } from '../../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../../test/helpers/spans.js';
import type { ScoreInput } from '../../scores/inputs.js';
import { deleteScore, storeScores, upsertScores } from '../../scores/operations.js';
import { requestContext, type RequestContext } from '../../shared/context.js';

const DAY = 24 * 60 * 60 * 1000;
// Names the roll-up must keep apart: one the prefix of another, and the separator and its escape.
const NAMES = ['q', 'q|x', 'x', 'a\\', 'a\\p', '|', 'quality'];

const server = useTestServer();
// The default project's, where the requests without a project act.
let ctx: RequestContext;
beforeAll(async () => {
  ctx = requestContext(server.assay.services, (await server.assay.db.project.findFirstOrThrow()).id);
});

const score = (id: string, trace_id: string, name: string, more: Partial<ScoreInput> = {}): ScoreInput => ({ id, trace_id, name, value: 1, ...more });

/** The names an entry list of the column holds ("|a|b\p|" → a, b|). */
function decoded(column: string | null): string[] {
  if (column === null) return [];
  expect(column.startsWith('|') && column.endsWith('|')).toBe(true);
  return column
    .slice(1, -1)
    .split('|')
    .map((entry) => entry.replace(/\\(.)/g, (_, char: string) => (char === 'p' ? '|' : char)))
    .sort();
}

/** Every trace of `projectId` holds the names of the scores naming it, each once; answers them by trace. */
async function expectKept(projectId = ctx.projectId): Promise<Map<string, string[]>> {
  const scores = await server.assay.db.score.findMany({ where: { projectId, traceId: { not: null } }, select: { traceId: true, name: true } });
  const traces = await server.assay.db.trace.findMany({ where: { projectId }, select: { traceId: true, scoreNames: true } });
  const expected = new Map(traces.map((trace) => [trace.traceId, [...new Set(scores.filter((s) => s.traceId === trace.traceId).map((s) => s.name))].sort()]));
  const kept = new Map(traces.map((trace) => [trace.traceId, decoded(trace.scoreNames)]));
  expect(Object.fromEntries(kept)).toEqual(Object.fromEntries(expected));
  return kept;
}

/** The trace list with "has" and "has no" score of each name keeps the traces the Score table says, on REST and GraphQL. */
async function expectFiltered() {
  const kept = await expectKept();
  for (const name of NAMES) {
    for (const present of [true, false]) {
      const expected = [...kept].filter(([, names]) => names.includes(name) === present).map(([traceId]) => traceId);
      const rest = await server.request('GET', `/observability/traces?limit=1000&scores=${encodeURIComponent(JSON.stringify([{ name, present }]))}`);
      expect(rest.status, rest.text).toBe(200);
      expect((rest.body.traces as { trace_id: string }[]).map((trace) => trace.trace_id).sort(), `${name} ${present}`).toEqual(expected.sort());
      const graphql = await server.graphql('query ($scores: [ScoreFilter!]) { traceMetrics(scores: $scores) { count } }', { scores: [{ name, present }] });
      expect(graphql.data.traceMetrics.count, `${name} ${present}`).toBe(expected.length);
    }
  }
}

describe("the names of a trace's scores on its row", () => {
  it('come with scores written before their trace when it arrives, through each way of writing scores', async () => {
    await upsertScores(ctx, [score('early-1', 'early', 'q'), score('early-2', 'early', 'q|x')]);
    expect(await storeScores(ctx, [score('early-3', 'early', 'q')])).toEqual([null]);
    await ingestSpans(server, 'early', [legacySpan('r', null, 60, 61)]);
    expect((await expectKept()).get('early')).toEqual(['q', 'q|x']);
    await ingestSpans(server, 'plain', [legacySpan('r', null, 70, 71)]);
    await expectFiltered();
  });

  it('take the names of scores written after the trace, on it and on its spans, each once', async () => {
    await ingestSpans(server, 'after', [legacySpan('r', null, 120, 122), legacySpan('c', 'r', 120.5, 121)]);
    await upsertScores(ctx, [score('after-1', 'after', 'a\\'), score('after-2', 'after', '|', { span_id: 'c' }), score('after-3', 'after', 'a\\')]);
    expect(await storeScores(ctx, [score('after-4', 'after', 'a\\p'), score('early-4', 'early', 'x')])).toEqual([null, null]);
    expect((await expectKept()).get('after')).toEqual(['a\\', 'a\\p', '|']);
    await expectFiltered();
  });

  it('follow a score written again under another name, and lose a name with its last score', async () => {
    await upsertScores(ctx, [score('after-2', 'after', 'quality', { span_id: 'c' })]);
    expect((await expectKept()).get('after')).toEqual(['a\\', 'a\\p', 'quality']);
    await deleteScore(ctx, 'after-1');
    expect((await expectKept()).get('after')).toEqual(['a\\', 'a\\p', 'quality']);
    await deleteScore(ctx, 'after-3');
    await deleteScore(ctx, 'after-4');
    expect((await expectKept()).get('after')).toEqual(['quality']);
    await deleteScore(ctx, 'after-2');
    const after = await server.assay.db.trace.findUniqueOrThrow({ where: { projectId_traceId: { projectId: ctx.projectId, traceId: 'after' } } });
    expect(after.scoreNames).toBeNull();
    await expectFiltered();
  });

  it('stay through further batches of the trace, and go with the trace: a trace stored again reads its new scores', async () => {
    await ingestSpans(server, 'early', [legacySpan('r0', null, 50, 70), legacySpan('r', 'r0', 60, 61)]);
    expect((await expectKept()).get('early')).toEqual(['q', 'q|x', 'x']);
    expect((await server.request('DELETE', '/observability/traces/early')).status).toBe(204);
    await upsertScores(ctx, [score('early-5', 'early', 'x')]);
    await ingestSpans(server, 'early', [legacySpan('r', null, 60, 61)]);
    expect((await expectKept()).get('early')).toEqual(['x']);
    await expectFiltered();
  });

  it("follow the scores of a user's deleted spans, in a trace that keeps others", async () => {
    await ingestSpans(server, 'shared', [legacySpan('r', null, 300, 310, { user: 'bob' }), legacySpan('a', 'r', 305, 306, { user: 'ada' })]);
    await upsertScores(ctx, [score('shared-1', 'shared', 'q', { span_id: 'a' }), score('shared-2', 'shared', 'x')]);
    expect((await expectKept()).get('shared')).toEqual(['q', 'x']);
    const deleted = await server.graphql('mutation { deleteUserSpans(userId: "ada") { spans traces } }');
    expect(deleted.data.deleteUserSpans).toEqual({ spans: 1, traces: 0 });
    expect((await expectKept()).get('shared')).toEqual(['x']);
    await expectFiltered();
  });

  it('go with the traces and scores retention deletes', async () => {
    const now = Date.now();
    const { projectId, ctx: project, writeTraces, sweep } = await retentionProject(server, 'score-names-retention');
    await writeTraces({ old: now - 40 * DAY, new: now - DAY });
    await upsertScores(project, [score('old-1', 'old', 'q'), score('new-1', 'new', 'q'), score('new-2', 'new', 'x')]);
    // A score older than the cutoff on a trace that stays: retention deletes it, whatever it names.
    await server.assay.db.score.update({ where: { projectId_id: { projectId, id: 'new-2' } }, data: { createdAt: new Date(now - 40 * DAY) } });
    expect(Object.fromEntries(await expectKept(projectId))).toEqual({ old: ['q'], new: ['q', 'x'] });
    expect((await sweep(new Date(now))).traces).toBe(1);
    expect(Object.fromEntries(await expectKept(projectId))).toEqual({ new: ['q'] });
  });

  it.runIf(onPostgres)('are right for scores and their trace written, and deleted, at once (PostgreSQL)', async () => {
    // Each pair races: the trace's first batch and its score, in separate transactions.
    for (let i = 0; i < 10; i++) {
      await Promise.all([
        ingestSpans(server, `race-${i}`, [legacySpan('r', null, 400 + i, 401 + i)]),
        upsertScores(ctx, [score(`race-${i}`, `race-${i}`, 'q')]),
      ]);
    }
    // A score of a name deleted while another of that name is written: the name stays.
    for (let i = 0; i < 10; i++) {
      await Promise.all([deleteScore(ctx, `race-${i}`), storeScores(ctx, [score(`race-again-${i}`, `race-${i}`, 'q')])]);
    }
    const kept = await expectKept();
    for (let i = 0; i < 10; i++) expect(kept.get(`race-${i}`)).toEqual(['q']);
    await expectFiltered();
  });
});
