// Langfuse's dataset runs (docs/langfuse.md#dataset-runs) over Assay's runs recorded from code
// (docs/experiments.md): a run is the external evaluation of the dataset's test set named by the
// run's name, a run item the scenario of its dataset item (a test set case), linked to the trace
// and observation the SDK made. The output, cost and latency come from that trace and the scores
// the SDK writes on it become the scenario's results (evaluations/external-traces.ts), so
// `experiment.run` and `dataset.runExperiment` work unchanged and the run shows beside Assay's.
import { z } from 'zod';
import * as external from '../evaluations/external.js';
import { deleteEvaluations, listScenarios, type EvaluationWithConfigs } from '../evaluations/operations.js';
import { listProjects } from '../projects/operations.js';
import type { RequestContext } from '../shared/context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import * as cases from '../testsets/cases.js';
import { getTestset } from '../testsets/operations.js';
import { readRowsById } from '../testsets/row-reads.js';
import { pageQuery } from './inputs.js';
import { pageOf } from './responses.js';

export const runItemBody = z
  .object({
    runName: z.string().trim().min(1).max(255),
    runDescription: z.string().max(10_000).nullish(),
    metadata: z.unknown().optional(),
    datasetItemId: z.string().min(1),
    observationId: z.string().min(1).max(255).nullish(),
    traceId: z.string().min(1).max(255).nullish(),
    datasetVersion: z.string().nullish(),
    createdAt: z.string().nullish(),
  })
  .superRefine((body, ctx) => {
    // Langfuse infers a missing traceId from the observation; Assay may not hold that span yet.
    if (!body.traceId) ctx.addIssue({ code: 'custom', path: ['traceId'], message: 'traceId is required: the trace the item was run in' });
  });

export const runParams = z.object({ datasetName: z.string().min(1), runName: z.string().min(1) });
export const datasetParams = z.object({ datasetName: z.string().min(1) });
export const runItemsQuery = pageQuery.extend({ datasetId: z.string().min(1), runName: z.string().min(1) });

export const runItemResponse = z
  .object({
    id: z.string().describe("The item's scenario"),
    datasetRunId: z.string().describe('The run: an evaluation id of Assay'),
    datasetRunName: z.string(),
    datasetItemId: z.string(),
    traceId: z.string(),
    observationId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LangfuseDatasetRunItem', description: "A case of a run recorded from code as Langfuse's dataset run item" });

export const runResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    metadata: z.unknown(),
    datasetId: z.string(),
    datasetName: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LangfuseDatasetRun', description: "A run recorded from code as Langfuse's dataset run" });

export const runWithItemsResponse = runResponse.extend({ datasetRunItems: z.array(runItemResponse) }).meta({ id: 'LangfuseDatasetRunWithItems' });

export const projectsResponse = z.object({
  data: z.array(
    z.object({ id: z.string(), name: z.string(), organization: z.object({ id: z.string(), name: z.string() }), metadata: z.record(z.string(), z.unknown()) }),
  ),
});

function runJson(run: EvaluationWithConfigs): z.output<typeof runResponse> {
  return {
    id: run.id,
    name: run.variantName,
    description: run.description,
    metadata: run.metadata ?? null,
    datasetId: run.testsetId ?? '',
    datasetName: run.testsetName ?? '',
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
  };
}

/** An object is kept as the run's metadata; any other value under `value`. */
function metadataOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/**
 * `POST /api/public/dataset-run-items`: the run of that name over the item's dataset (created
 * on its first item, its description and metadata updated by later ones), and the item's case in
 * it, linked to the trace (a case run again replaces its link).
 */
export async function createRunItem(ctx: RequestContext, body: z.output<typeof runItemBody>): Promise<z.output<typeof runItemResponse>> {
  const item = await cases.getCase(ctx, body.datasetItemId);
  const details = { description: body.runDescription ?? undefined, metadata: metadataOf(body.metadata) };
  let run = await external.findExternalRun(ctx, item.testset.id, body.runName);
  if (!run) {
    try {
      // Langfuse's runs have no end: recorded as finished, their statistics follow each item.
      run = await external.createExternalRun(ctx, { testset_id: item.testset.id, name: body.runName, ...details }, 'EVALUATION_FINISHED');
    } catch (error) {
      // Created meanwhile by another item of the same run.
      if (!(error instanceof ConflictError)) throw error;
      run = (await external.findExternalRun(ctx, item.testset.id, body.runName))!;
    }
  } else if (details.description !== undefined || details.metadata !== undefined) {
    run = await external.describeExternalRun(ctx, run.id, details);
  }
  const {
    scenarios: [scenario],
  } = await external.addExternalCases(
    ctx,
    run.id,
    [{ testset_row_id: item.row.id, trace_id: body.traceId, span_id: body.observationId ?? null, results: [] }],
    { open: false },
  );
  return {
    id: scenario.id,
    datasetRunId: run.id,
    datasetRunName: run.variantName,
    datasetItemId: body.datasetItemId,
    traceId: body.traceId!,
    observationId: body.observationId ?? null,
    createdAt: scenario.createdAt.toISOString(),
    updatedAt: scenario.updatedAt.toISOString(),
  };
}

/** The dataset's runs recorded from code, oldest first, a page at a time. */
export async function listRuns(ctx: RequestContext, datasetName: string, page: z.output<typeof pageQuery>) {
  const testset = await cases.findTestsetByName(ctx, datasetName);
  const runs = await external.listExternalRuns(ctx, testset.id);
  return pageOf(runs.slice((page.page - 1) * page.limit, page.page * page.limit).map(runJson), page.page, page.limit, runs.length);
}

async function namedRun(ctx: RequestContext, datasetName: string, runName: string): Promise<EvaluationWithConfigs> {
  const testset = await cases.findTestsetByName(ctx, datasetName);
  const run = await external.findExternalRun(ctx, testset.id, runName);
  if (!run) throw new NotFoundError('DatasetRun', runName);
  return run;
}

/** A run's items: its cases that link a trace, in test set order. */
async function runItems(ctx: RequestContext, run: EvaluationWithConfigs): Promise<z.output<typeof runItemResponse>[]> {
  const scenarios = await listScenarios(ctx, run.id, {
    select: { id: true, testsetRowId: true, traceId: true, spanId: true, createdAt: true, updatedAt: true },
  });
  const rows = await readRowsById(
    ctx,
    run.testsetId ?? '',
    scenarios.flatMap((scenario) => (scenario.testsetRowId ? [scenario.testsetRowId] : [])),
  );
  return scenarios.flatMap((scenario) => {
    const row = scenario.testsetRowId ? rows.get(scenario.testsetRowId) : undefined;
    if (!row || !scenario.traceId) return [];
    return [
      {
        id: scenario.id,
        datasetRunId: run.id,
        datasetRunName: run.variantName,
        datasetItemId: row.caseId ?? row.id,
        traceId: scenario.traceId,
        observationId: scenario.spanId,
        createdAt: scenario.createdAt.toISOString(),
        updatedAt: scenario.updatedAt.toISOString(),
      },
    ];
  });
}

/** `GET /api/public/datasets/{name}/runs/{run}`: the run with its items. */
export async function getRun(ctx: RequestContext, datasetName: string, runName: string) {
  const run = await namedRun(ctx, datasetName, runName);
  return { ...runJson(run), datasetRunItems: await runItems(ctx, run) };
}

/** `DELETE /api/public/datasets/{name}/runs/{run}`: the run and its cases (their traces and trace scores stay). */
export async function deleteRun(ctx: RequestContext, datasetName: string, runName: string) {
  const run = await namedRun(ctx, datasetName, runName);
  await deleteEvaluations(ctx, [run.id]);
  return { message: 'Dataset run successfully deleted' };
}

/** `GET /api/public/dataset-run-items?datasetId=&runName=`: a run's items, a page at a time. */
export async function listRunItems(ctx: RequestContext, query: z.output<typeof runItemsQuery>) {
  const testset = await getTestset(ctx, query.datasetId);
  const run = await external.findExternalRun(ctx, testset.id, query.runName);
  if (!run) throw new NotFoundError('DatasetRun', query.runName);
  const items = await runItems(ctx, run);
  return pageOf(items.slice((query.page - 1) * query.limit, query.page * query.limit), query.page, query.limit, items.length);
}

/** `GET /api/public/projects`: the key's project, which the SDK reads to build links. */
export async function keyProjects(ctx: RequestContext): Promise<z.output<typeof projectsResponse>> {
  const projects = await listProjects(ctx.db, [ctx.projectId]);
  return { data: projects.map((project) => ({ id: project.id, name: project.name, organization: { id: 'assay', name: 'Assay' }, metadata: {} })) };
}
