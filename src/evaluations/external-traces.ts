// What the traces of an external run's cases bring, whenever they arrive (docs/experiments.md#traces):
// the trace's cost and latency (unless the caller gave them), the output of the case's span (when
// the caller gave none), and the scores on the trace as the case's results, named by their
// configs. Read when cases are added and the run is finished, and again each time spans of those
// traces are stored (externalTraceFollower, told by ingestion) or Langfuse's scores are written.
import type { FastifyBaseLogger } from 'fastify';
import { findOrCreateConfigsByName } from '../evaluators/operations.js';
import { result, type Result } from '../evaluators/results.js';
import { spanOutputs, traceFigures } from '../observability/traces/trace-reads.js';
import { scoresOf } from '../scores/score-reads.js';
import { type RequestContext, requestContext, type Services } from '../shared/context.js';
import { toJson } from '../shared/json.js';
import { ProjectQueue } from '../shared/project-queue.js';
import { progressOf } from '../evaluation-engine/events.js';
import { addToRun, lockRuns, settleIn, upsertResults } from './external-results.js';
import { EXTERNAL_ORIGIN } from './operations.js';

type ScoreRow = Awaited<ReturnType<typeof scoresOf>>[number][number];

/** A score on a case's trace as the case's result: a boolean, a number, or a category's or a text's label. */
function scoreResult(score: ScoreRow): Result {
  if (score.dataType === 'BOOLEAN') return result('bool', score.value === 1);
  if (score.dataType === 'NUMERIC') return result('number', score.value);
  return result('text', score.stringValue ?? (score.value === null ? null : String(score.value)));
}

/**
 * A span's stored outputs as an output Result: a text as text, any other JSON as json. Ingestion
 * keeps an output that is no object as `{output: value}` (docs/observability.md), unwrapped here.
 */
function spanOutputResult(outputs: unknown): Result {
  const keys = outputs !== null && typeof outputs === 'object' && !Array.isArray(outputs) ? Object.keys(outputs) : [];
  const value = keys.length === 1 && keys[0] === 'output' ? (outputs as { output: unknown }).output : outputs;
  return typeof value === 'string' ? result('text', value) : result('json', value ?? null);
}

/**
 * Reads what the stored traces hold into the external cases linked to them (those of one run, or
 * those linked to `traceIds`) and settles the runs it changed in the same transaction, so that a
 * reader never sees a case's new figures without the run's totals over them.
 */
export async function readTraceOutcomes(ctx: RequestContext, where: { evaluationId: string } | { traceIds: readonly string[] }): Promise<void> {
  const scenarios = await ctx.db.evaluationScenario.findMany({
    where: {
      projectId: ctx.projectId,
      ...('evaluationId' in where ? { evaluationId: where.evaluationId, traceId: { not: null } } : { traceId: { in: [...where.traceIds] } }),
      evaluation: { origin: EXTERNAL_ORIGIN },
    },
    select: {
      id: true,
      evaluationId: true,
      traceId: true,
      spanId: true,
      outputFromTrace: true,
      givenCost: true,
      givenLatency: true,
      cost: true,
      latency: true,
      output: true,
      evaluation: { select: { appId: true } },
    },
  });
  if (scenarios.length === 0) return;
  const traceIds = [...new Set(scenarios.map((scenario) => scenario.traceId!))];
  const [figures, scoreLists] = await Promise.all([traceFigures(ctx, traceIds), scoresOf(ctx, 'traceId', traceIds)]);
  const spanOf = (scenario: (typeof scenarios)[number]) => {
    const trace = figures.get(scenario.traceId!);
    const spanId = scenario.spanId ?? trace?.rootSpanId ?? null;
    return scenario.outputFromTrace && trace && spanId ? { traceId: scenario.traceId!, spanId } : null;
  };
  const outputs = await spanOutputs(
    ctx,
    scenarios.flatMap((scenario) => spanOf(scenario) ?? []),
  );
  // The newest score of each name on a trace (scoresOf answers them oldest first).
  const scoresByTrace = new Map(traceIds.map((traceId, index) => [traceId, new Map(scoreLists[index].map((score) => [score.name, score]))]));
  const namesByApp = new Map<string, Set<string>>();
  for (const scenario of scenarios) {
    const names = namesByApp.get(scenario.evaluation.appId) ?? new Set<string>();
    for (const name of scoresByTrace.get(scenario.traceId!)?.keys() ?? []) names.add(name);
    namesByApp.set(scenario.evaluation.appId, names);
  }
  const configsByApp = new Map<string, Map<string, { id: string }>>();
  for (const [appId, names] of namesByApp) {
    const configs = await findOrCreateConfigsByName(ctx, appId, [...names]);
    configsByApp.set(appId, new Map(configs.map((config) => [config.name, config])));
  }

  const touched = new Set<string>();
  const settled = await ctx.db.$transaction(
    async (tx) => {
      await lockRuns(
        ctx,
        tx,
        scenarios.map((scenario) => scenario.evaluationId),
      );
      for (const scenario of scenarios) {
        const trace = figures.get(scenario.traceId!);
        const span = spanOf(scenario);
        const output = span && outputs.has(`${span.traceId}:${span.spanId}`) ? spanOutputResult(outputs.get(`${span.traceId}:${span.spanId}`)) : null;
        const cost = scenario.givenCost ?? trace?.cost ?? null;
        const latency = scenario.givenLatency ?? trace?.latency ?? null;
        const outputChanged = output !== null && JSON.stringify(output) !== JSON.stringify(scenario.output);
        if (cost !== scenario.cost || latency !== scenario.latency || outputChanged) {
          await tx.evaluationScenario.update({ where: { id: scenario.id }, data: { cost, latency, ...(outputChanged ? { output: toJson(output) } : {}) } });
          touched.add(scenario.evaluationId);
        }
        const scores = [...(scoresByTrace.get(scenario.traceId!)?.values() ?? [])];
        if (scores.length === 0) continue;
        const configs = configsByApp.get(scenario.evaluation.appId)!;
        await addToRun(
          tx,
          scenario.evaluationId,
          scores.map((score) => configs.get(score.name)!),
        );
        await upsertResults(
          tx,
          scenario.id,
          scores.map((score) => ({ configId: configs.get(score.name)!.id, value: scoreResult(score) })),
        );
        touched.add(scenario.evaluationId);
      }
      const runs = [];
      for (const evaluationId of touched) runs.push(await settleIn(tx, evaluationId));
      return runs;
    },
    { timeout: 60_000 },
  );
  for (const run of settled) ctx.events.publish('evaluation:progress', run.id, progressOf(run));
}

/** Reads what these traces hold into their external cases and settles the runs that changed. */
export async function followTraces(ctx: RequestContext, traceIds: readonly string[]): Promise<void> {
  if (traceIds.length === 0) return;
  // Most traces scored or stored are no external case's: one raw read of the index says so
  // before readTraceOutcomes' Prisma queries, which cost an ingestion batch a tenth of its CPU (docs/langfuse.md#bench).
  const linked = await ctx.sql.first(
    `SELECT 1 AS "linked" FROM "EvaluationScenario" AS s JOIN "Evaluation" AS e ON e."id" = s."evaluationId"
     WHERE s."projectId" = ? AND s."traceId" IN (${ctx.sql.jsonValues('?')}) AND e."origin" = ? LIMIT 1`,
    [ctx.projectId, JSON.stringify([...new Set(traceIds)]), EXTERNAL_ORIGIN],
  );
  if (linked) await readTraceOutcomes(ctx, { traceIds });
}

/**
 * Ingestion's hook (Services.tracesStoredHooks): remembers the traces stored and reads them into
 * the external cases that link them, later and apart, one project at a time.
 */
export function externalTraceFollower(services: Services, log: FastifyBaseLogger): ProjectQueue {
  return new ProjectQueue(
    (projectId, traceIds) => followTraces(requestContext(services, projectId), traceIds),
    log,
    'reading traces into external runs failed',
  );
}
