// What an external run's cases and results are made of, for the cases its caller adds
// (external.ts) and for what their traces bring later (external-traces.ts); docs/experiments.md.
import { progressOf } from '../evaluation-engine/events.js';
import { result, type Result } from '../evaluators/results.js';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { toJson } from '../shared/json.js';
import { storeAggregates } from './aggregates.js';
import { dataTypeOf, type ReportedResult } from './inputs.js';
import { evaluationWithConfigs } from './operations.js';
import { numericScore } from './scenario-results.js';

/** A reported result as the Result a scenario keeps (docs/experiments.md#how-a-run-fits-the-evaluation-model). */
export function reportedResult(reported: Pick<ReportedResult, 'value' | 'data_type'>): Result {
  const type = dataTypeOf(reported);
  if (type === 'BOOLEAN') return result('bool', reported.value === true || reported.value === 1);
  if (type === 'NUMERIC') return result('number', reported.value);
  return result('text', String(reported.value));
}

/** Adds configs to the run's (in first-seen order), those it has already left as they are. */
export async function addToRun(tx: Prisma.TransactionClient, evaluationId: string, configs: readonly { id: string }[]): Promise<void> {
  if (configs.length === 0) return;
  const present = await tx.evaluationEvaluator.findMany({ where: { evaluationId }, select: { evaluatorConfigId: true, position: true } });
  const known = new Set(present.map((row) => row.evaluatorConfigId));
  let position = present.reduce((max, row) => Math.max(max, row.position + 1), 0);
  for (const config of configs) {
    if (known.has(config.id)) continue;
    known.add(config.id);
    await tx.evaluationEvaluator.create({ data: { evaluationId, evaluatorConfigId: config.id, position: position++ } });
  }
}

/** Writes a scenario's results, replacing those of the same configs. */
export async function upsertResults(tx: Prisma.TransactionClient, scenarioId: string, results: readonly { configId: string; value: Result }[]): Promise<void> {
  for (const { configId, value } of results) {
    const fields = { type: value.type, value: toJson(value.value), error: value.error ? toJson(value.error) : undefined, score: numericScore(value) };
    await tx.evaluationScenarioResult.upsert({
      where: { scenarioId_evaluatorConfigId: { scenarioId, evaluatorConfigId: configId } },
      create: { scenarioId, evaluatorConfigId: configId, ...fields },
      update: fields,
    });
  }
}

/**
 * Recounts an external run's cases and errors and recomputes its aggregates and totals, as the
 * runner does when a run ends; a finished run's status follows its errors. Serialised per run, so
 * two batches settling at once leave the counts of both.
 */
export async function settleRun(ctx: RequestContext, evaluationId: string): Promise<void> {
  const evaluation = await ctx.db.$transaction(async (tx) => {
    await lockRuns(ctx, tx, [evaluationId]);
    return settleIn(tx, evaluationId);
  });
  ctx.events.publish('evaluation:progress', evaluationId, progressOf(evaluation));
}

/** Serialises the transactions that settle these runs (in one order, so two never wait on each other). */
export function lockRuns(ctx: RequestContext, tx: Prisma.TransactionClient, evaluationIds: readonly string[]): Promise<void> {
  return ctx.sql.lockKeys(
    tx,
    [...new Set(evaluationIds)].sort().map((id) => `evaluation:${id}`),
  );
}

/** settleRun's work inside a transaction that holds the run's lock (lockRuns); answers the run. */
export async function settleIn(tx: Prisma.TransactionClient, evaluationId: string) {
  const scenarios = await tx.evaluationScenario.findMany({ where: { evaluationId }, select: { output: true, results: { select: { type: true } } } });
  const errors = scenarios.filter(
    (scenario) => (scenario.output as { type?: unknown } | null)?.type === 'error' || scenario.results.some((row) => row.type === 'error'),
  ).length;
  const run = await tx.evaluation.update({
    where: { id: evaluationId },
    data: { total: scenarios.length, done: scenarios.length, errors },
    ...evaluationWithConfigs,
  });
  const hasErrors = await storeAggregates(
    tx,
    evaluationId,
    run.evaluators.map((row) => row.evaluatorConfig),
  );
  if (run.status === 'EVALUATION_FINISHED' || run.status === 'EVALUATION_FINISHED_WITH_ERRORS') {
    return tx.evaluation.update({ where: { id: evaluationId }, data: { status: hasErrors ? 'EVALUATION_FINISHED_WITH_ERRORS' : 'EVALUATION_FINISHED' } });
  }
  return run;
}
