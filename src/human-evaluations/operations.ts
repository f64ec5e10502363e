// Human evaluations (docs/human-evaluations.md): create, read, judge, set the status, delete.
// Generating the outputs is runner.ts's work; the numbers over the judgements are statistics.ts's.
//
// Every scenario is created with its evaluation, one per test case, with empty `outputs` that the
// runner fills (a scenario whose outputs are `[]` is still to run). The left/right order of an A/B
// scenario is drawn then and kept in `displayOrder`.
import { randomInt } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { getAppVariants } from '../apps/operations.js';
import type { EvaluationStatus, HumanEvaluationScenario } from '../generated/prisma/client.js';
import { missingProviderKey } from '../providers/access.js';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { isUnfinished } from '../evaluation-engine/states.js';
import { asArray, asObject, toJson } from '../shared/json.js';
import { jsonText } from '../shared/sql.js';
import { getTestset } from '../testsets/operations.js';
import { readTestsetRows } from '../testsets/row-reads.js';
import { ANONYMOUS_JUDGE, type CreateHumanEvaluationInput, type HumanEvaluationTypeName, type JudgeScenarioInput } from './inputs.js';

type HumanEvaluationQuery = Omit<Prisma.HumanEvaluationFindFirstArgs, 'where'>;
type ScenarioQuery = Omit<Prisma.HumanEvaluationScenarioFindManyArgs, 'where'>;

/** The column whose value is a scenario's `correct_answer`. */
export const CORRECT_ANSWER_COLUMN = 'correct_answer';

/** One generated output as stored; docs/contract.md 2.7 shows `variant_id` and `variant_output`. */
export interface StoredOutput {
  variant_id: string;
  variant_output: string;
  /** Why the variant gave no output (its text then starts with "Error: "); null when it did. */
  error?: string | null;
  /** USD. */
  cost?: number | null;
  /** Seconds. */
  latency?: number | null;
  /** The trace recorded for this call. */
  trace_id?: string | null;
}

export interface ScenarioInput {
  input_name: string;
  input_value: string;
}

export async function getHumanEvaluation<Q extends HumanEvaluationQuery = object>(
  ctx: RequestContext,
  id: string,
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationGetPayload<Q>> {
  const found = await ctx.db.humanEvaluation.findFirst({ ...(query as HumanEvaluationQuery), where: { id, projectId: ctx.projectId } });
  if (!found) throw new NotFoundError('HumanEvaluation', id);
  return found as Prisma.HumanEvaluationGetPayload<Q>;
}

export async function listHumanEvaluations<Q extends HumanEvaluationQuery = object>(
  ctx: RequestContext,
  filter: { app_id?: string },
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationGetPayload<Q>[]> {
  return ctx.db.humanEvaluation.findMany({
    orderBy: { id: 'asc' },
    ...(query as HumanEvaluationQuery),
    where: { projectId: ctx.projectId, ...(filter.app_id ? { appId: filter.app_id } : {}) },
  }) as Promise<Prisma.HumanEvaluationGetPayload<Q>[]>;
}

/** Scenarios in test set order. */
export async function listHumanScenarios<Q extends ScenarioQuery = object>(
  ctx: RequestContext,
  humanEvaluationId: string,
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationScenarioGetPayload<Q>[]> {
  await getHumanEvaluation(ctx, humanEvaluationId, { select: { id: true } });
  return ctx.db.humanEvaluationScenario.findMany({
    orderBy: { position: 'asc' },
    ...(query as ScenarioQuery),
    where: { humanEvaluationId, projectId: ctx.projectId },
  }) as Promise<Prisma.HumanEvaluationScenarioGetPayload<Q>[]>;
}

export async function getHumanScenario<Q extends Omit<Prisma.HumanEvaluationScenarioFindFirstArgs, 'where'> = object>(
  ctx: RequestContext,
  humanEvaluationId: string,
  scenarioId: string,
  query: Q = {} as Q,
): Promise<Prisma.HumanEvaluationScenarioGetPayload<Q>> {
  const scenario = await ctx.db.humanEvaluationScenario.findFirst({
    ...(query as object),
    where: { id: scenarioId, humanEvaluationId, projectId: ctx.projectId },
  });
  if (!scenario) throw new NotFoundError('HumanEvaluationScenario', scenarioId);
  return scenario as Prisma.HumanEvaluationScenarioGetPayload<Q>;
}

export interface JudgementRow {
  scenarioId: string;
  position: number;
  /** Null for a scenario no one judged (or judged without a name). */
  judge: string | null;
  vote: string | null;
  score: number | null;
  /** Variant ids left to right as shown. */
  displayOrder: string[];
}

export interface EvaluationFacts {
  evaluationType: 'human_a_b_testing' | 'single_model_test';
  variantIds: string[];
  variantNames: string[];
  scenarios: number;
  rows: JudgementRow[];
}

/**
 * Loads an evaluation's rows (404 when it is not the caller's), for statistics.ts. Every judgement
 * is one row: one judge's verdict on one scenario. A scenario no one judged is one row without a
 * vote, and so is a scenario whose vote was stored without a judge (rows written directly). With
 * one judge, the rows are the scenarios, as in Agenta.
 */
export async function evaluationFacts(ctx: RequestContext, evaluationId: string): Promise<EvaluationFacts> {
  const evaluation = await getHumanEvaluation(ctx, evaluationId);
  // Two flat reads: a nested `judgements` include would send every scenario id as a parameter.
  const scenarios = await ctx.db.humanEvaluationScenario.findMany({
    where: { humanEvaluationId: evaluationId, projectId: ctx.projectId },
    orderBy: { position: 'asc' },
    select: { id: true, position: true, vote: true, score: true, displayOrder: true },
  });
  const judgements = await ctx.db.humanJudgement.findMany({
    where: { scenario: { humanEvaluationId: evaluationId, projectId: ctx.projectId } },
    orderBy: [{ scenarioId: 'asc' }, { judge: 'asc' }],
    select: { scenarioId: true, judge: true, vote: true, score: true },
  });
  const byScenario = new Map<string, typeof judgements>();
  for (const judgement of judgements) {
    const list = byScenario.get(judgement.scenarioId) ?? [];
    list.push(judgement);
    byScenario.set(judgement.scenarioId, list);
  }
  const rows: JudgementRow[] = [];
  for (const scenario of scenarios) {
    const displayOrder = asArray<string>(scenario.displayOrder);
    const base = { scenarioId: scenario.id, position: scenario.position, displayOrder };
    const judged = byScenario.get(scenario.id) ?? [];
    if (judged.length === 0) rows.push({ ...base, judge: null, vote: scenario.vote, score: scenario.score });
    for (const judgement of judged) rows.push({ ...base, judge: judgement.judge, vote: judgement.vote, score: judgement.score });
  }
  return {
    evaluationType: evaluation.evaluationType,
    variantIds: asArray<string>(evaluation.variantIds),
    variantNames: asArray<string>(evaluation.variantNames),
    scenarios: scenarios.length,
    rows,
  };
}

/** A cell of a test set as the text a judge reads. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The stored outputs of a scenario; empty while the runner has not produced them. */
export function storedOutputs(scenario: Pick<HumanEvaluationScenario, 'outputs'>): StoredOutput[] {
  return asArray<StoredOutput>(scenario.outputs);
}

/** Variant ids left to right as shown to judges (A/B: drawn at random per scenario). */
export function displayOrderOf(scenario: Pick<HumanEvaluationScenario, 'displayOrder'>): string[] {
  return asArray<string>(scenario.displayOrder);
}

/**
 * docs/human-evaluations.md: checks the app, its variants (two for A/B, one for a single model test), the test set
 * and that it has every input column, then creates the evaluation with one scenario per test
 * case. The runner fills the outputs in the background unless `status` says otherwise.
 */
export async function createHumanEvaluation(ctx: RequestContext, input: CreateHumanEvaluationInput) {
  const variants = await getAppVariants(ctx, input.app_id, input.variant_ids);
  const testset = await getTestset(ctx, input.testset_id);
  const columns = new Set(asArray<string>(testset.columns));
  const status: EvaluationStatus = input.status ?? 'EVALUATION_INITIALIZED';
  const generate = isUnfinished(status);

  const issues: ValidationIssue[] = [];
  input.inputs.forEach((column, index) => {
    if (!columns.has(column)) {
      issues.push({ loc: ['body', 'inputs', index], msg: `The test set ${testset.name} has no column ${column}`, type: 'value_error' });
    }
  });
  if (generate) {
    // Prompt variants are run by us against a model provider: that provider needs a key here.
    variants.forEach((variant, index) => {
      if (variant.kind !== 'prompt') return;
      const configured = asObject(variant.revisions[0]?.parameters).model;
      const model = typeof configured === 'string' ? configured : '';
      const missing = missingProviderKey(model, null, ctx.providerEnv);
      if (missing) {
        issues.push({
          loc: ['body', 'variant_ids', index],
          msg: `The prompt variant ${variant.name} needs ${missing} in the server's environment`,
          type: 'value_error',
        });
      }
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const variantIds = variants.map((variant) => variant.id);
  const evaluationId = uuidv7();
  const now = new Date();
  const scenarioRows: (string | number | boolean | Date | null)[][] = [];
  let afterPosition: number | undefined;
  for (;;) {
    const page = await readTestsetRows(ctx, testset.id, { afterPosition, limit: 1000 });
    for (const row of page) {
      const data = asObject(row.data);
      const inputs: ScenarioInput[] = input.inputs.map((column) => ({ input_name: column, input_value: cellText(data[column]) }));
      const correctAnswer = Object.hasOwn(data, CORRECT_ANSWER_COLUMN) ? cellText(data[CORRECT_ANSWER_COLUMN]) : null;
      scenarioRows.push([
        uuidv7(),
        ctx.projectId,
        evaluationId,
        row.position,
        row.id,
        jsonText(inputs),
        '[]',
        correctAnswer,
        false,
        '',
        jsonText(randomOrder(variantIds)),
        now,
        now,
      ]);
    }
    if (page.length < 1000) break;
    afterPosition = page[page.length - 1].position;
  }

  const created = await ctx.db.$transaction(
    async (tx) => {
      const evaluation = await tx.humanEvaluation.create({
        data: {
          id: evaluationId,
          projectId: ctx.projectId,
          appId: input.app_id,
          evaluationType: input.evaluation_type,
          status,
          variantIds: toJson(variantIds),
          variantNames: toJson(variants.map((variant) => variant.name)),
          variantRevisionIds: toJson(variants.map((variant) => variant.revisions[0].id)),
          revisions: toJson(variants.map((variant) => variant.revisions[0].revision)),
          testsetId: testset.id,
          testsetName: testset.name,
          inputs: toJson(input.inputs),
          total: scenarioRows.length,
        },
      });
      await ctx.sql.insertRows(
        tx,
        'HumanEvaluationScenario',
        [
          'id',
          'projectId',
          'humanEvaluationId',
          'position',
          'testsetRowId',
          'inputs',
          'outputs',
          'correctAnswer',
          'isPinned',
          'note',
          'displayOrder',
          'createdAt',
          'updatedAt',
        ],
        scenarioRows,
      );
      return evaluation;
    },
    { timeout: 10 * 60 * 1000 },
  );
  if (generate) ctx.events.publish('jobs:created', 'human-evaluation');
  return created;
}

/** The variants in a random order (Fisher–Yates with a CSPRNG): the left-to-right order judges see. */
function randomOrder(ids: readonly string[]): string[] {
  const order = [...ids];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The faults of a judgement that does not fit the evaluation (its type, its variants). */
function judgementIssues(
  evaluation: { evaluationType: HumanEvaluationTypeName; variantIds: Prisma.JsonValue },
  pathType: string | undefined,
  input: JudgeScenarioInput,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const type = evaluation.evaluationType;
  const variantIds = asArray<string>(evaluation.variantIds);
  if (pathType !== undefined && pathType !== type) {
    issues.push({ loc: ['path', 'evaluation_type'], msg: `This evaluation is of type ${type}, not ${pathType}`, type: 'value_error' });
  }
  if (input.vote !== undefined && input.vote !== null) {
    if (type === 'single_model_test') {
      issues.push({ loc: ['body', 'vote'], msg: 'A single_model_test scenario is judged with a score, not a vote', type: 'value_error' });
    } else if (![...variantIds, '1', '0'].includes(input.vote)) {
      issues.push({
        loc: ['body', 'vote'],
        msg: `Input should be a variant id of this evaluation (${variantIds.map((id) => `'${id}'`).join(' or ')}), '1' (both good) or '0' (both bad)`,
        type: 'value_error',
      });
    }
  }
  if (input.score !== undefined && input.score !== null && type === 'human_a_b_testing') {
    issues.push({ loc: ['body', 'score'], msg: 'A human_a_b_testing scenario is judged with a vote, not a score', type: 'value_error' });
  }
  input.outputs?.forEach((output, index) => {
    if (!variantIds.includes(output.variant_id)) {
      issues.push({
        loc: ['body', 'outputs', index, 'variant_id'],
        msg: `${output.variant_id} is not a variant of this evaluation`,
        type: 'value_error',
      });
    }
  });
  return issues;
}

/**
 * docs/human-evaluations.md: a judge's vote (A/B) or score (single model) on a scenario, and the scenario's own
 * fields (`correct_answer`, `outputs`, `is_pinned`, `note`). Each judge's judgement is kept
 * apart (one per judge and scenario; judging again replaces it); the scenario's `vote` and
 * `score` mirror the latest judgement, so the contract's shape reads as Agenta's does.
 * `evaluationType` is the REST path's segment, which must name the evaluation's type.
 */
export async function judgeScenario(
  ctx: RequestContext,
  evaluationId: string,
  scenarioId: string,
  input: JudgeScenarioInput,
  evaluationType?: string,
): Promise<HumanEvaluationScenario> {
  const evaluation = await getHumanEvaluation(ctx, evaluationId);
  const scenario = await getHumanScenario(ctx, evaluationId, scenarioId);
  const issues = judgementIssues(evaluation, evaluationType, input);
  if (issues.length > 0) throw new ValidationError(issues);

  const judges = input.vote !== undefined || input.score !== undefined;
  return ctx.db.$transaction(async (tx) => {
    const data: Prisma.HumanEvaluationScenarioUpdateInput = {};
    if (judges) {
      const judge = input.judge ?? ANONYMOUS_JUDGE;
      const fields = {
        ...(input.vote !== undefined ? { vote: input.vote } : {}),
        ...(input.score !== undefined ? { score: input.score } : {}),
      };
      const judgement = await tx.humanJudgement.upsert({
        where: { scenarioId_judge: { scenarioId, judge } },
        create: { scenarioId, judge, ...fields },
        update: fields,
      });
      data.vote = judgement.vote;
      data.score = judgement.score;
    }
    if (input.correct_answer !== undefined) data.correctAnswer = input.correct_answer;
    if (input.is_pinned !== undefined) data.isPinned = input.is_pinned;
    if (input.note !== undefined) data.note = input.note;
    if (input.outputs !== undefined) {
      // Given outputs replace those of the same variant; the others stay. Kept in variant order.
      const byVariant = new Map(storedOutputs(scenario).map((output) => [output.variant_id, output]));
      for (const output of input.outputs) byVariant.set(output.variant_id, { variant_id: output.variant_id, variant_output: output.variant_output });
      const order = asArray<string>(evaluation.variantIds);
      data.outputs = toJson(order.filter((id) => byVariant.has(id)).map((id) => byVariant.get(id)));
    }
    return tx.humanEvaluationScenario.update({ where: { id: scenarioId }, data });
  });
}

/**
 * Sets the status (the values of docs/human-evaluations.md). INITIALIZED or STARTED (again) has the runner generate the
 * outputs still missing; any other value stops a generation under way (what is stored stays).
 */
export async function updateHumanEvaluationStatus(ctx: RequestContext, evaluationId: string, status: EvaluationStatus) {
  await getHumanEvaluation(ctx, evaluationId, { select: { id: true } });
  const updated = await ctx.db.humanEvaluation.update({ where: { id: evaluationId }, data: { status } });
  if (isUnfinished(status)) ctx.events.publish('jobs:created', 'human-evaluation');
  else ctx.events.publish('job:stopped', evaluationId);
  return updated;
}

/** Deletes evaluations with their scenarios and judgements; 404 for the first unknown id, and then nothing is deleted. */
export async function deleteHumanEvaluations(ctx: RequestContext, evaluationIds: readonly string[]): Promise<void> {
  const found = await ctx.db.humanEvaluation.findMany({ where: { id: { in: [...evaluationIds] }, projectId: ctx.projectId }, select: { id: true } });
  const known = new Set(found.map((row) => row.id));
  const unknown = evaluationIds.find((id) => !known.has(id));
  if (unknown !== undefined) throw new NotFoundError('HumanEvaluation', unknown);
  await ctx.db.humanEvaluation.deleteMany({ where: { id: { in: [...known] } } });
  for (const id of known) ctx.events.publish('job:stopped', id);
}

/**
 * The first scenario in test set order whose outputs are there and that `judge` has not judged
 * yet (no vote or score of theirs): what a judging screen shows next. Null when none is left.
 */
export async function nextUnjudgedScenarioId(ctx: RequestContext, evaluationId: string, judge: string): Promise<string | null> {
  await getHumanEvaluation(ctx, evaluationId, { select: { id: true } });
  const rows = await ctx.db.$queryRaw<{ id: string }[]>`
    SELECT s."id" AS "id" FROM "HumanEvaluationScenario" s
    WHERE s."humanEvaluationId" = ${evaluationId} AND s."projectId" = ${ctx.projectId} AND s."outputs" <> '[]'
      AND NOT EXISTS (
        SELECT 1 FROM "HumanJudgement" j
        WHERE j."scenarioId" = s."id" AND j."judge" = ${judge} AND (j."vote" IS NOT NULL OR j."score" IS NOT NULL))
    ORDER BY s."position" LIMIT 1`;
  return rows[0]?.id ?? null;
}

/** How many scenarios have their outputs, and how many of those carry an error. */
export async function outputProgress(ctx: Pick<RequestContext, 'db' | 'sql'>, evaluationId: string): Promise<{ done: number; errors: number }> {
  // An output with an error has an "error" string member; SQLite keeps JSON.stringify's text, PostgreSQL a jsonb value.
  const failed = ctx.sql.provider === 'postgresql' ? `jsonb_path_exists("outputs", '$[*].error ? (@.type() == "string")')` : `"outputs" LIKE '%"error":"%'`;
  const [row] = await ctx.sql.query<{ done: bigint | number | null; errors: bigint | number | null }>(
    ctx.db,
    `SELECT SUM(CASE WHEN "outputs" <> '[]' THEN 1 ELSE 0 END) AS "done", SUM(CASE WHEN ${failed} THEN 1 ELSE 0 END) AS "errors"
     FROM "HumanEvaluationScenario" WHERE "humanEvaluationId" = ?`,
    [evaluationId],
  );
  return { done: Number(row?.done ?? 0), errors: Number(row?.errors ?? 0) };
}
