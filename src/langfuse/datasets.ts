// Langfuse's datasets and dataset items (docs/langfuse.md#datasets) over Assay's test sets
// (src/testsets): a dataset is a test set found by its name, an item a case found by its id
// (TestsetRow.caseId), so every write is a test set revision and evaluations run the same rows.
// An item's `input` and `expectedOutput` are the row's columns, its metadata and source kept
// beside them, as decided in the docs.
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { listExternalRuns } from '../evaluations/external.js';
import * as cases from '../testsets/cases.js';
import type { TestsetRecord } from '../testsets/operations.js';
import type { TestsetRowData } from '../testsets/inputs.js';
import type { RequestContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { Prisma } from '../shared/db.js';
import { pageQuery, timestamp } from './inputs.js';
import { pageOf } from './responses.js';

/** The column an item's `expectedOutput` is: Assay's conventional ground truth (docs/evaluations.md#ground-truth). */
export const EXPECTED_OUTPUT_COLUMN = 'correct_answer';
/** The column of an `input` that is not an object. */
export const INPUT_COLUMN = 'input';

const statuses = ['ACTIVE', 'ARCHIVED'] as const;

export const datasetName = z.object({ datasetName: z.string().min(1) });
export const itemId = z.object({ id: z.string().min(1) });

export const createDatasetBody = z.object({
  name: z.string().trim().min(1).max(255),
  description: z.string().nullish(),
  metadata: z.unknown().optional(),
  inputSchema: z.null({ message: 'JSON Schemas of items are not served: leave inputSchema out' }).optional(),
  expectedOutputSchema: z.null({ message: 'JSON Schemas of items are not served: leave expectedOutputSchema out' }).optional(),
});

export const createItemBody = z
  .object({
    datasetName: z.string().min(1),
    input: z.unknown().optional(),
    expectedOutput: z.unknown().optional(),
    metadata: z.unknown().optional(),
    sourceTraceId: z.string().min(1).nullish(),
    sourceObservationId: z.string().min(1).nullish(),
    id: z.string().min(1).max(255).nullish(),
    status: z.enum(statuses).nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.sourceObservationId && !body.sourceTraceId) {
      ctx.addIssue({ code: 'custom', path: ['sourceObservationId'], message: 'sourceObservationId needs sourceTraceId: a span is named within its trace' });
    }
    const input = body.input;
    if (input && typeof input === 'object' && !Array.isArray(input) && Object.hasOwn(input, EXPECTED_OUTPUT_COLUMN)) {
      ctx.addIssue({
        code: 'custom',
        path: ['input', EXPECTED_OUTPUT_COLUMN],
        message: `${EXPECTED_OUTPUT_COLUMN} is the column of expectedOutput: give it as expectedOutput`,
      });
    }
  });

export const datasetPageQuery = pageQuery;
export const itemPageQuery = pageQuery
  .extend({
    datasetName: z.string().min(1).optional(),
    sourceTraceId: z.string().min(1).optional(),
    sourceObservationId: z.string().min(1).optional(),
    version: timestamp().optional().describe("The dataset as it was at this time: the test set's newest revision made by then"),
  })
  .superRefine((query, ctx) => {
    if (query.version && !query.datasetName) ctx.addIssue({ code: 'custom', path: ['version'], message: 'version requires datasetName' });
  });

export const datasetResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    metadata: z.unknown(),
    inputSchema: z.null(),
    expectedOutputSchema: z.null(),
    projectId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LangfuseDataset', description: "A test set as Langfuse's dataset (Dataset)" });

export const itemResponse = z
  .object({
    id: z.string().describe("The case's id, the same in all its versions"),
    status: z.enum(statuses),
    input: z.unknown(),
    expectedOutput: z.unknown(),
    metadata: z.unknown(),
    sourceTraceId: z.string().nullable(),
    sourceObservationId: z.string().nullable(),
    datasetId: z.string(),
    datasetName: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    mediaReferences: z.array(z.never()).describe('Always empty: media are not served'),
  })
  .meta({ id: 'LangfuseDatasetItem', description: "A test set's case as Langfuse's dataset item (DatasetItem)" });

export const datasetWithItemsResponse = datasetResponse
  .extend({ items: z.array(itemResponse), runs: z.array(z.string()).describe("The names of the dataset's runs") })
  .meta({ id: 'LangfuseDatasetWithItems', description: "Langfuse's v1 dataset: the dataset with its items" });

function datasetJson(testset: TestsetRecord): z.output<typeof datasetResponse> {
  return {
    id: testset.id,
    name: testset.name,
    description: testset.description,
    metadata: testset.metadata ?? null,
    inputSchema: null,
    expectedOutputSchema: null,
    projectId: testset.projectId,
    createdAt: testset.createdAt.toISOString(),
    updatedAt: testset.updatedAt.toISOString(),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A row's columns as Langfuse's `input` (every column but the expected output's) and `expectedOutput`. */
export function itemParts(data: Prisma.JsonValue): { input: unknown; expectedOutput: unknown } {
  const { [EXPECTED_OUTPUT_COLUMN]: expectedOutput = null, ...rest } = isObject(data) ? data : {};
  const columns = Object.keys(rest);
  const input = columns.length === 0 ? null : columns.length === 1 && columns[0] === INPUT_COLUMN ? rest[INPUT_COLUMN] : rest;
  return { input, expectedOutput };
}

/** Langfuse's `input` and `expectedOutput` as a row's columns: an object's keys, else one `input` column. */
export function rowData(input: unknown, expectedOutput: unknown): TestsetRowData {
  const data: TestsetRowData = isObject(input) ? { ...input } : input === null || input === undefined ? {} : { [INPUT_COLUMN]: input };
  if (expectedOutput !== null && expectedOutput !== undefined) data[EXPECTED_OUTPUT_COLUMN] = expectedOutput;
  return data;
}

export function itemJson(found: cases.CaseRecord): z.output<typeof itemResponse> {
  const { row } = found;
  return {
    id: row.caseId ?? row.id,
    status: found.archived ? 'ARCHIVED' : 'ACTIVE',
    ...itemParts(row.data),
    metadata: row.metadata ?? null,
    sourceTraceId: row.sourceTraceId,
    sourceObservationId: row.sourceSpanId,
    datasetId: found.testset.id,
    datasetName: found.testset.name,
    createdAt: found.createdAt.toISOString(),
    updatedAt: found.updatedAt.toISOString(),
    mediaReferences: [],
  };
}

/** The test set a dataset name names; Langfuse's 404 otherwise. */
async function datasetNamed(ctx: RequestContext, name: string): Promise<TestsetRecord> {
  return cases.findTestsetByName(ctx, name).catch((error: unknown) => {
    throw error instanceof NotFoundError ? new NotFoundError('Dataset', name) : error;
  });
}

export async function listDatasets(ctx: RequestContext, query: z.output<typeof datasetPageQuery>) {
  const { testsets, total } = await cases.pageTestsets(ctx, { skip: (query.page - 1) * query.limit, take: query.limit });
  return pageOf(testsets.map(datasetJson), query.page, query.limit, total);
}

/** Creates the dataset, or changes the description and metadata of the one of that name (Langfuse upserts by name). */
export async function createDataset(ctx: RequestContext, body: z.output<typeof createDatasetBody>) {
  const metadata = body.metadata === undefined ? undefined : (body.metadata as Prisma.JsonValue);
  return datasetJson(await cases.upsertTestsetByName(ctx, body.name, { description: body.description, metadata }));
}

export async function getDataset(ctx: RequestContext, name: string) {
  return datasetJson(await datasetNamed(ctx, name));
}

/** Every item of a dataset, current and archived, in the test set's order. */
async function allItems(ctx: RequestContext, testsetId: string) {
  const items: z.output<typeof itemResponse>[] = [];
  const PAGE = 1000;
  for (let skip = 0; ; skip += PAGE) {
    const { cases: page } = await cases.listCases(ctx, { testsetId }, { skip, take: PAGE });
    items.push(...page.map(itemJson));
    if (page.length < PAGE) return items;
  }
}

/** Langfuse's v1 `GET /api/public/datasets/{name}`: the dataset with all its items and its runs' names. */
export async function getDatasetWithItems(ctx: RequestContext, name: string) {
  const testset = await datasetNamed(ctx, name);
  const runs = await listExternalRuns(ctx, testset.id);
  return { ...datasetJson(testset), items: await allItems(ctx, testset.id), runs: runs.map((run) => run.variantName) };
}

export async function listItems(ctx: RequestContext, query: z.output<typeof itemPageQuery>) {
  const testset = query.datasetName === undefined ? undefined : await datasetNamed(ctx, query.datasetName);
  const revision = testset && query.version ? await cases.revisionAt(ctx, testset.id, query.version) : undefined;
  const { cases: page, total } = await cases.listCases(
    ctx,
    { testsetId: testset?.id, sourceTraceId: query.sourceTraceId, sourceSpanId: query.sourceObservationId, revision },
    { skip: (query.page - 1) * query.limit, take: query.limit },
  );
  return pageOf(page.map(itemJson), query.page, query.limit, total);
}

export async function getItem(ctx: RequestContext, id: string) {
  return itemJson(await cases.getCase(ctx, id).catch(notFoundAsItem(id)));
}

const notFoundAsItem = (id: string) => (error: unknown) => {
  throw error instanceof NotFoundError ? new NotFoundError('Dataset item', id) : error;
};

/**
 * Creates the item or, by its id, updates it as Langfuse upserts: a field left out (or null)
 * keeps its value, `status` included (a new item is ACTIVE).
 */
export async function upsertItem(ctx: RequestContext, body: z.output<typeof createItemBody>) {
  const testset = await datasetNamed(ctx, body.datasetName);
  const id = body.id ?? uuidv7();
  const existing = body.id
    ? await cases.getCase(ctx, body.id).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      })
    : null;
  const before = existing ? itemParts(existing.row.data) : { input: null, expectedOutput: null };
  const input = body.input ?? before.input;
  const expectedOutput = body.expectedOutput ?? before.expectedOutput;
  const source = body.sourceTraceId
    ? { traceId: body.sourceTraceId, spanId: body.sourceObservationId ?? null }
    : existing?.row.sourceTraceId
      ? { traceId: existing.row.sourceTraceId, spanId: existing.row.sourceSpanId }
      : null;
  const metadata = (body.metadata ?? existing?.row.metadata ?? null) as Prisma.JsonValue | null;
  const archived = body.status ? body.status === 'ARCHIVED' : (existing?.archived ?? false);
  return itemJson(await cases.writeCase(ctx, testset.id, id, { data: rowData(input, expectedOutput), metadata, source, archived }));
}

export async function deleteItem(ctx: RequestContext, id: string) {
  await cases.deleteCase(ctx, id).catch(notFoundAsItem(id));
  return { message: 'Dataset item successfully deleted' };
}
