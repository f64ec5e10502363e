// Runs recorded from the caller's code (docs/experiments.md): an evaluation of origin `external`
// that the runner never takes. The caller creates it over a test set (its variant named after the
// run), adds its cases with their outputs, traces and evaluator results, and finishes it; its
// aggregates and totals are computed as for Assay's runs (aggregates.ts). What the cases' traces
// bring later (cost, latency, the output of a span, scores) is read in external-traces.ts.
import { findOrCreateApp, findOrCreateVariant, getApp } from '../apps/operations.js';
import { findOrCreateConfigsByName } from '../evaluators/operations.js';
import { errorResult, result, type Result } from '../evaluators/results.js';
import { writeScores } from '../scores/operations.js';
import { systemActor, type RequestContext } from '../shared/context.js';
import { isUniqueViolation, Prisma } from '../shared/db.js';
import { ConflictError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { toJson } from '../shared/json.js';
import { getTestset } from '../testsets/operations.js';
import { readRowsById } from '../testsets/row-reads.js';
import type { CreateExternalRunInput, ExternalCaseInput, FinishExternalRunInput } from './inputs.js';
import { EXTERNAL_ORIGIN, evaluationWithConfigs, getEvaluation, pinned, type EvaluationWithConfigs } from './operations.js';
import { scenarioScore } from './scenario-results.js';
import { addToRun, reportedResult, settleRun, upsertResults } from './external-results.js';
import { readTraceOutcomes } from './external-traces.js';

/** The app of runs whose caller names none and whose test set belongs to no app. */
export const EXPERIMENTS_APP = 'experiments';

const OPEN = 'EVALUATION_STARTED';

function runKey(testsetId: string, name: string): string {
  return `${testsetId}/${name}`;
}

/**
 * Creates an external run of a test set, recorded in the app the caller names, else the test
 * set's app, else the project's `experiments` app, as a variant of the run's name (found or
 * created). `status` is EVALUATION_STARTED for a run its caller finishes; Langfuse's runs, which
 * are never finished, are created finished (docs/langfuse.md#dataset-runs). One run of a name per
 * test set: another is a 409.
 */
export async function createExternalRun(ctx: RequestContext, input: CreateExternalRunInput, status: 'EVALUATION_STARTED' | 'EVALUATION_FINISHED' = OPEN) {
  const testset = await getTestset(ctx, input.testset_id);
  const appId = input.app_id ? (await getApp(ctx, input.app_id)).id : (testset.appId ?? (await findOrCreateApp(ctx, EXPERIMENTS_APP)).id);
  const variant = await findOrCreateVariant(ctx, appId, input.name);
  const now = new Date();
  try {
    return await ctx.db.evaluation.create({
      data: {
        projectId: ctx.projectId,
        appId,
        ...pinned(variant, testset),
        origin: EXTERNAL_ORIGIN,
        runKey: runKey(testset.id, input.name),
        description: input.description ?? null,
        metadata: input.metadata ? toJson(input.metadata) : undefined,
        correctAnswerColumn: input.correct_answer_column ?? null,
        rateLimit: {},
        status,
        startedAt: now,
        finishedAt: status === OPEN ? null : now,
      },
      ...evaluationWithConfigs,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`Test set ${testset.id} already has a run named ${input.name}`);
    throw error;
  }
}

/** The external run of this name over the test set, or null. */
export function findExternalRun(ctx: RequestContext, testsetId: string, name: string) {
  return ctx.db.evaluation.findFirst({ where: { projectId: ctx.projectId, runKey: runKey(testsetId, name) }, ...evaluationWithConfigs });
}

/** The external runs over a test set, oldest first. */
export function listExternalRuns(ctx: RequestContext, testsetId: string) {
  return ctx.db.evaluation.findMany({
    where: { projectId: ctx.projectId, testsetId, origin: EXTERNAL_ORIGIN },
    orderBy: { id: 'asc' },
    ...evaluationWithConfigs,
  });
}

/** An evaluation of this project recorded from code; 409 for one Assay runs. */
export async function getExternalRun(ctx: RequestContext, evaluationId: string): Promise<EvaluationWithConfigs> {
  const evaluation = await getEvaluation(ctx, evaluationId);
  if (evaluation.origin !== EXTERNAL_ORIGIN) throw new ConflictError(`Evaluation ${evaluationId} is run by Assay; only runs recorded from code take cases`);
  return evaluation;
}

/** The output a case reports as a Result: an error, a text or any JSON; a JSON null until its trace gives it. */
function outputResult(input: ExternalCaseInput): Result {
  if (input.error) return errorResult(input.error);
  if (typeof input.output === 'string') return result('text', input.output);
  return result('json', input.output ?? null);
}

/** The scenario of each case, in the order given. */
export interface AddedCases {
  scenarios: { id: string; createdAt: Date; updatedAt: Date }[];
}

/**
 * Adds (or, for a position recorded already, replaces) cases of an external run in one
 * transaction: each with its output, trace, given cost and latency, and its results under
 * configs of their names (found or created in the run's app, and added to the run). A row of
 * another test set is a 422 naming it. `open` (the default) refuses a run that has ended (409);
 * Langfuse's runs take items whatever their status.
 */
export async function addExternalCases(
  ctx: RequestContext,
  evaluationId: string,
  cases: readonly ExternalCaseInput[],
  options: { open?: boolean } = {},
): Promise<AddedCases> {
  const evaluation = await getExternalRun(ctx, evaluationId);
  if ((options.open ?? true) && evaluation.status !== OPEN) throw new ConflictError(`Evaluation ${evaluationId} has already ended (${evaluation.status})`);
  const testsetId = evaluation.testsetId ?? '';
  const rows = await readRowsById(
    ctx,
    testsetId,
    cases.flatMap((input) => (input.testset_row_id ? [input.testset_row_id] : [])),
  );
  const issues: ValidationIssue[] = [];
  cases.forEach((input, index) => {
    if (input.testset_row_id && !rows.has(input.testset_row_id)) {
      issues.push({ loc: ['body', 'cases', index, 'testset_row_id'], msg: `Test set ${testsetId} has no row ${input.testset_row_id}`, type: 'value_error' });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);

  const names = [...new Set(cases.flatMap((input) => input.results.map((reported) => reported.name)))];
  const configs = await findOrCreateConfigsByName(ctx, evaluation.appId, names);
  const configOf = new Map(configs.map((config) => [config.name, config]));
  const truth = truthColumns(evaluation);

  // Inline cases go after the test set's rows and the run's cases.
  const [last, testset] = await Promise.all([
    ctx.db.evaluationScenario.findFirst({ where: { evaluationId }, orderBy: { position: 'desc' }, select: { position: true } }),
    getTestset(ctx, testsetId, { select: { rowCount: true } }),
  ]);
  let nextInline = Math.max((last?.position ?? -1) + 1, testset.rowCount);

  const scenarios = await ctx.db.$transaction(
    async (tx) => {
      await ctx.sql.lockKeys(tx, [`evaluation:${evaluationId}`]);
      await addToRun(tx, evaluationId, configs);
      const stored: AddedCases['scenarios'] = [];
      for (const input of cases) {
        const row = input.testset_row_id ? rows.get(input.testset_row_id)! : null;
        const data = (row ? (row.data as Record<string, unknown>) : input.inputs) ?? {};
        const fields = {
          projectId: ctx.projectId,
          testsetRowId: row?.id ?? null,
          inputs: toJson(
            Object.entries(data)
              .filter(([name]) => !truth.includes(name))
              .map(([name, value]) => ({ name, type: 'text', value })),
          ),
          correctAnswers: toJson(truth.filter((name) => Object.hasOwn(data, name)).map((name) => ({ key: name, value: textOf(data[name]) }))),
          output: toJson(outputResult(input)),
          outputFromTrace: input.output === undefined && !input.error,
          traceId: input.trace_id ?? null,
          spanId: input.span_id ?? null,
          givenCost: input.cost ?? null,
          givenLatency: input.latency ?? null,
          cost: input.cost ?? null,
          latency: input.latency ?? null,
        };
        const position = row ? row.position : nextInline++;
        const scenario = await tx.evaluationScenario.upsert({
          where: { evaluationId_position: { evaluationId, position } },
          create: { evaluationId, position, ...fields },
          update: fields,
          select: { id: true, createdAt: true, updatedAt: true },
        });
        stored.push(scenario);
        const reported = input.results.map((item) => ({ item, config: configOf.get(item.name)!, value: reportedResult(item) }));
        await upsertResults(
          tx,
          scenario.id,
          reported.map(({ config, value }) => ({ configId: config.id, value })),
        );
        await writeScores(
          ctx,
          tx,
          reported.flatMap(({ item, config, value }) => scenarioScore(evaluationId, scenario.id, config, value, item.comment)),
          { author: systemActor },
        );
      }
      return stored;
    },
    { timeout: 60_000 },
  );
  // What the traces stored already hold (cost, latency, an output to read, scores).
  await readTraceOutcomes(ctx, { evaluationId });
  await settleRun(ctx, evaluationId);
  return { scenarios };
}

/**
 * Ends an open external run: finished (with errors when a case or result is an error), failed
 * with the caller's message, or cancelled. An ended run is a 409.
 */
export async function finishExternalRun(ctx: RequestContext, evaluationId: string, input: FinishExternalRunInput): Promise<EvaluationWithConfigs> {
  const evaluation = await getExternalRun(ctx, evaluationId);
  if (evaluation.status !== OPEN) throw new ConflictError(`Evaluation ${evaluationId} has already ended (${evaluation.status})`);
  await readTraceOutcomes(ctx, { evaluationId });
  const { count } = await ctx.db.evaluation.updateMany({
    where: { id: evaluationId, status: OPEN },
    data: {
      // settleRun turns a finished run's status into FINISHED_WITH_ERRORS where a case has an error.
      status: input.status,
      statusError: input.status === 'EVALUATION_FAILED' ? { message: input.error ?? 'The run failed', stacktrace: null } : undefined,
      finishedAt: new Date(),
    },
  });
  if (count === 0) throw new ConflictError(`Evaluation ${evaluationId} has already ended`);
  await settleRun(ctx, evaluationId);
  return getEvaluation(ctx, evaluationId);
}

/** The ground-truth columns of an external run's cases: its `correct_answer_column`, else `correct_answer` (docs/evaluations.md#ground-truth). */
function truthColumns(evaluation: Pick<EvaluationWithConfigs, 'correctAnswerColumn'>): string[] {
  return [evaluation.correctAnswerColumn ?? 'correct_answer'];
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Changes an external run's description and metadata (Langfuse's run items carry them and update the run). */
export async function describeExternalRun(
  ctx: RequestContext,
  evaluationId: string,
  details: { description?: string | null; metadata?: Record<string, unknown> | null },
) {
  await getExternalRun(ctx, evaluationId);
  return ctx.db.evaluation.update({
    where: { id: evaluationId },
    data: {
      ...(details.description !== undefined ? { description: details.description } : {}),
      ...(details.metadata !== undefined ? { metadata: details.metadata === null ? Prisma.DbNull : toJson(details.metadata) } : {}),
    },
    ...evaluationWithConfigs,
  });
}
