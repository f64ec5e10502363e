// Test sets (docs/resources.md): a name and rows of column → value. Plain functions over Prisma,
// shared by REST and GraphQL; `query` is Pothos' planned include/select so nested fields load in
// the same SQL. Rows live in their own table, written in chunks and read in pages (row-reads.ts),
// so a 100,000-case set neither overflows a statement's parameters nor has to sit in memory to be run.
import { v7 as uuidv7 } from 'uuid';
import { getApp } from '../apps/operations.js';
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { asArray, asObject } from '../shared/json.js';
import type { Tx } from '../shared/sql.js';
import { nameFromFilename, parseCsvRows, parseJsonRows } from './files.js';
import type { ChangeColumnsInput, CreateTestsetInput, TestsetRowData, UpdateTestsetInput, UploadTestsetInput } from './inputs.js';

type TestsetQuery = Omit<Prisma.TestsetFindFirstArgs, 'where'>;

export type TestsetRowRecord = Prisma.TestsetRowGetPayload<object>;

/** A large set is written in one transaction; Prisma's 5 s default would cut it short. */
export const WRITE_TIMEOUT_MS = 10 * 60 * 1000;

/** Column names in the order they are first seen across the rows. */
export function columnsOf(rows: readonly TestsetRowData[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  return [...columns];
}

/** A case to write, with the production trace (and span) it was made from when it was (from-spans.ts). */
export interface NewRow {
  data: TestsetRowData;
  source?: RowSource;
  /** The case this is a version of; a new case (its id the version's) when absent. */
  caseId?: string;
  /** Free-form data about the case that is not a column. */
  metadata?: Prisma.JsonValue;
}

export interface RowSource {
  traceId: string;
  spanId?: string | null;
}

/** What a new version of a row keeps of the one it replaces: its case, source and metadata. */
export function keptOf(row: TestsetRowRecord): Omit<NewRow, 'data'> {
  return {
    caseId: row.caseId ?? row.id,
    source: row.sourceTraceId ? { traceId: row.sourceTraceId, spanId: row.sourceSpanId } : undefined,
    metadata: row.metadata ?? undefined,
  };
}

/**
 * Writes rows as versions starting at `revision`, at positions `firstPosition`, `firstPosition + 1`,
 * … (`createMany` took 10 s for 100,000 rows, this 1 s).
 */
export async function insertTestsetRows(
  ctx: RequestContext,
  tx: Tx,
  testsetId: string,
  revision: number,
  firstPosition: number,
  rows: readonly NewRow[],
  revisionTo: number | null = null,
): Promise<TestsetRowRecord[]> {
  const records = rows.map((row, index): TestsetRowRecord => {
    const id = uuidv7();
    return {
      id,
      testsetId,
      position: firstPosition + index,
      data: row.data as Prisma.JsonValue,
      revisionFrom: revision,
      revisionTo,
      sourceTraceId: row.source?.traceId ?? null,
      sourceSpanId: row.source?.spanId ?? null,
      caseId: row.caseId ?? id,
      metadata: row.metadata ?? null,
    };
  });
  await ctx.sql.insertRows(
    tx,
    'TestsetRow',
    ['id', 'testsetId', 'position', 'data', 'revisionFrom', 'revisionTo', 'sourceTraceId', 'sourceSpanId', 'caseId', 'metadata'],
    records.map((row) => [
      row.id,
      testsetId,
      row.position,
      JSON.stringify(row.data),
      revision,
      revisionTo,
      row.sourceTraceId,
      row.sourceSpanId,
      row.caseId,
      row.metadata === null ? null : JSON.stringify(row.metadata),
    ]),
  );
  return records;
}

const plainRows = (rows: readonly TestsetRowData[]): NewRow[] => rows.map((data) => ({ data }));

/** What a revision records as its change (TestsetRevision.change). */
export const testsetChanges = [
  'created',
  'uploaded',
  'replaced',
  'rows_added',
  'rows_edited',
  'rows_deleted',
  'rows_from_spans',
  'columns_changed',
  'rows_archived',
  'described',
] as const;
export type TestsetChange = (typeof testsetChanges)[number];

export type TestsetRecord = Prisma.TestsetGetPayload<object>;

/** Records the test set as it now is as the revision its `revision` names. */
export async function recordRevision(tx: Prisma.TransactionClient, testset: TestsetRecord, change: TestsetChange): Promise<void> {
  await tx.testsetRevision.create({
    data: { testsetId: testset.id, number: testset.revision, change, name: testset.name, columns: testset.columns ?? [], rowCount: testset.rowCount },
  });
}

async function checkApp(ctx: RequestContext, appId: string | null | undefined): Promise<void> {
  if (appId) await getApp(ctx, appId);
}

/** A test set's description and metadata (Langfuse's datasets have them; Assay's REST does not take them). */
export interface TestsetDetails {
  description?: string | null;
  metadata?: Prisma.JsonValue | null;
}

/** Creates a test set; Langfuse's datasets (src/langfuse/datasets.ts) start with no rows and with details. */
export async function createTestset(ctx: RequestContext, input: CreateTestsetInput & TestsetDetails, change: TestsetChange = 'created') {
  await checkApp(ctx, input.app_id);
  return ctx.db.$transaction(
    async (tx) => {
      const testset = await tx.testset.create({
        data: {
          projectId: ctx.projectId,
          appId: input.app_id || null,
          name: input.name,
          description: input.description ?? null,
          metadata: input.metadata ?? Prisma.DbNull,
          columns: columnsOf(input.csvdata),
          rowCount: input.csvdata.length,
        },
      });
      await insertTestsetRows(ctx, tx, testset.id, 1, 0, plainRows(input.csvdata));
      await recordRevision(tx, testset, change);
      return testset;
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}

/** Reads an uploaded CSV or JSON file into rows and stores them as a new test set. */
export async function uploadTestset(ctx: RequestContext, input: UploadTestsetInput) {
  const name = input.testset_name ?? nameFromFilename(input.file.filename);
  if (!name) {
    throw ValidationError.at(['body', 'testset_name'], 'Field required when the file has no name', 'missing');
  }
  const csvdata = input.upload_type === 'JSON' ? parseJsonRows(input.file) : parseCsvRows(input.file);
  return createTestset(ctx, { name, csvdata, app_id: input.app_id }, 'uploaded');
}

/** Oldest first (ids are UUID v7, so id order is creation order), like every list of the API. */
export async function listTestsets<Q extends TestsetQuery>(ctx: RequestContext, filter: { app_id?: string | null }, query?: Q) {
  if (filter.app_id) await getApp(ctx, filter.app_id);
  return ctx.db.testset.findMany({
    orderBy: { id: 'asc' },
    ...query,
    where: { projectId: ctx.projectId, ...(filter.app_id ? { appId: filter.app_id } : {}) },
  });
}

export async function getTestset<Q extends TestsetQuery = object>(ctx: RequestContext, testsetId: string, query?: Q): Promise<Prisma.TestsetGetPayload<Q>> {
  const testset = await ctx.db.testset.findFirst({ ...query, where: { id: testsetId, projectId: ctx.projectId } });
  if (!testset) throw new NotFoundError('Testset', testsetId);
  return testset as Prisma.TestsetGetPayload<Q>;
}

const allRows = { include: { rows: { where: { revisionTo: null }, orderBy: { position: 'asc' } } } } as const;
export type TestsetWithRows = Prisma.TestsetGetPayload<typeof allRows>;

/** The test set with every row in position order (REST answers them all, as Agenta does). */
export async function getTestsetWithRows(ctx: RequestContext, testsetId: string): Promise<TestsetWithRows> {
  return getTestset(ctx, testsetId, allRows);
}

/**
 * Starts a new revision of the test set inside `tx`: its number goes up by one in the statement
 * that finds it, so concurrent changes of one set queue on its row and each gets its own number,
 * and a concurrent delete cannot slip in between.
 */
export async function nextRevision(ctx: RequestContext, tx: Prisma.TransactionClient, testsetId: string): Promise<TestsetRecord> {
  const { count } = await tx.testset.updateMany({ where: { id: testsetId, projectId: ctx.projectId }, data: { revision: { increment: 1 } } });
  if (count === 0) throw new NotFoundError('Testset', testsetId);
  return tx.testset.findUniqueOrThrow({ where: { id: testsetId } });
}

/** Ends the current versions of these rows (all of them when `rowIds` is absent) at `revision`. */
export async function closeRows(tx: Prisma.TransactionClient, testsetId: string, revision: number, rowIds?: readonly string[]): Promise<number> {
  const { count } = await tx.testsetRow.updateMany({
    where: { testsetId, revisionTo: null, ...(rowIds ? { id: { in: [...rowIds] } } : {}) },
    data: { revisionTo: revision },
  });
  return count;
}

/**
 * Replaces the name and all rows in one transaction: readers see the old set or the new one, and
 * the old rows stay as the previous revision.
 */
export async function updateTestset(ctx: RequestContext, testsetId: string, input: UpdateTestsetInput) {
  return ctx.db.$transaction(
    async (tx) => {
      const { revision } = await nextRevision(ctx, tx, testsetId);
      await closeRows(tx, testsetId, revision);
      await insertTestsetRows(ctx, tx, testsetId, revision, 0, plainRows(input.csvdata));
      const testset = await tx.testset.update({
        where: { id: testsetId },
        data: { name: input.name, columns: columnsOf(input.csvdata), rowCount: input.csvdata.length },
      });
      await recordRevision(tx, testset, 'replaced');
      return testset;
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}

/** One past the last current row's position (deleted rows leave gaps, which stay). */
export async function nextPosition(tx: Prisma.TransactionClient, testsetId: string): Promise<number> {
  const { _max } = await tx.testsetRow.aggregate({ where: { testsetId, revisionTo: null }, _max: { position: true } });
  return (_max.position ?? -1) + 1;
}

/** The columns so far, then those the new rows bring, in the order first seen. */
export function widenedColumns(columns: Prisma.JsonValue, rows: readonly TestsetRowData[]): string[] {
  return [...new Set([...asArray<string>(columns), ...columnsOf(rows)])];
}

/** Appends rows (with their sources, when made from spans) as a new revision. */
export async function addRows(ctx: RequestContext, testsetId: string, rows: readonly NewRow[], change: TestsetChange = 'rows_added') {
  return ctx.db.$transaction(
    async (tx) => {
      const current = await nextRevision(ctx, tx, testsetId);
      const written = await insertTestsetRows(ctx, tx, testsetId, current.revision, await nextPosition(tx, testsetId), rows);
      const testset = await tx.testset.update({
        where: { id: testsetId },
        data: {
          columns: widenedColumns(
            current.columns,
            rows.map((row) => row.data),
          ),
          rowCount: { increment: rows.length },
        },
      });
      await recordRevision(tx, testset, change);
      return { testset, rows: written };
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}

/** The current versions of these rows of the set, by id; 404 naming the first that is not one. */
async function currentRows(tx: Prisma.TransactionClient, testsetId: string, rowIds: readonly string[]) {
  const found = await tx.testsetRow.findMany({ where: { testsetId, revisionTo: null, id: { in: [...rowIds] } } });
  const byId = new Map(found.map((row) => [row.id, row]));
  const unknown = rowIds.find((id) => !byId.has(id));
  if (unknown !== undefined) throw new NotFoundError('TestsetRow', unknown);
  return byId;
}

/**
 * Replaces the data of some rows as a new revision: each edited row gets a new version (a new id)
 * at the same position, keeping its source; the old version stays in the earlier revisions.
 */
export async function editRows(ctx: RequestContext, testsetId: string, edits: readonly { row_id: string; data: TestsetRowData }[]) {
  return ctx.db.$transaction(
    async (tx) => {
      const current = await nextRevision(ctx, tx, testsetId);
      const rowIds = edits.map((edit) => edit.row_id);
      const repeated = rowIds.findIndex((id, index) => rowIds.indexOf(id) !== index);
      if (repeated !== -1) throw ValidationError.at(['body', 'rows', repeated, 'row_id'], 'The row is edited twice', 'value_error');
      const old = await currentRows(tx, testsetId, rowIds);
      await closeRows(tx, testsetId, current.revision, rowIds);
      for (const edit of edits) {
        const row = old.get(edit.row_id)!;
        await insertTestsetRows(ctx, tx, testsetId, current.revision, row.position, [{ ...keptOf(row), data: edit.data }]);
      }
      const testset = await tx.testset.update({
        where: { id: testsetId },
        data: {
          columns: widenedColumns(
            current.columns,
            edits.map((edit) => edit.data),
          ),
        },
      });
      await recordRevision(tx, testset, 'rows_edited');
      return testset;
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}

/** Removes rows as a new revision (they stay in the earlier ones); at least one row must remain. */
export async function deleteRows(ctx: RequestContext, testsetId: string, rowIds: readonly string[]) {
  const ids = [...new Set(rowIds)];
  return ctx.db.$transaction(
    async (tx) => {
      const current = await nextRevision(ctx, tx, testsetId);
      await currentRows(tx, testsetId, ids);
      if (ids.length >= current.rowCount) {
        throw ValidationError.at(['body', 'row_ids'], 'A test set keeps at least one row; delete the test set instead', 'value_error');
      }
      await closeRows(tx, testsetId, current.revision, ids);
      const testset = await tx.testset.update({ where: { id: testsetId }, data: { rowCount: { decrement: ids.length } } });
      await recordRevision(tx, testset, 'rows_deleted');
      return testset;
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}

export async function deleteTestset(ctx: RequestContext, testsetId: string): Promise<void> {
  const { count } = await ctx.db.testset.deleteMany({ where: { id: testsetId, projectId: ctx.projectId } });
  if (count === 0) throw new NotFoundError('Testset', testsetId);
}

/** Deletes all the given test sets or, if one is unknown, none (404 naming the first unknown). */
export async function deleteTestsets(ctx: RequestContext, testsetIds: readonly string[]): Promise<void> {
  const ids = [...new Set(testsetIds)];
  await ctx.db.$transaction(async (tx) => {
    const found = await tx.testset.findMany({ where: { id: { in: ids }, projectId: ctx.projectId }, select: { id: true } });
    const known = new Set(found.map((testset) => testset.id));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw new NotFoundError('Testset', unknown);
    await tx.testset.deleteMany({ where: { id: { in: ids }, projectId: ctx.projectId } });
  });
}

/** Rows rewritten per statement by a column change. */
const REWRITE_CHUNK = 1000;

/**
 * Renames and removes columns as a new revision: every current row holding one of them gets a new
 * version at its position (keeping its source), read and written a chunk at a time.
 */
export async function changeColumns(ctx: RequestContext, testsetId: string, input: ChangeColumnsInput) {
  const rename = input.rename ?? {};
  const remove = new Set(input.remove ?? []);
  return ctx.db.$transaction(
    async (tx) => {
      const current = await nextRevision(ctx, tx, testsetId);
      const columns = asArray<string>(current.columns);
      const issues: ValidationIssue[] = [];
      for (const column of [...Object.keys(rename), ...remove]) {
        if (!columns.includes(column))
          issues.push({ loc: ['body', column in rename ? 'rename' : 'remove', column], msg: `The test set has no column ${column}`, type: 'value_error' });
      }
      const kept = columns.filter((column) => !remove.has(column) && !(column in rename));
      for (const [from, to] of Object.entries(rename)) {
        if (kept.includes(to) || Object.entries(rename).some(([other, target]) => other !== from && target === to)) {
          issues.push({ loc: ['body', 'rename', from], msg: `Column ${to} would be there twice`, type: 'value_error' });
        }
      }
      if (issues.length > 0) throw new ValidationError(issues);
      const touched = new Set([...Object.keys(rename), ...remove]);
      let afterPosition = -1;
      for (;;) {
        const rows = await tx.testsetRow.findMany({
          where: { testsetId, revisionTo: null, position: { gt: afterPosition } },
          orderBy: { position: 'asc' },
          take: REWRITE_CHUNK,
        });
        const changed = rows.filter((row) => Object.keys(asObject(row.data)).some((column) => touched.has(column)));
        if (changed.length > 0) {
          await closeRows(
            tx,
            testsetId,
            current.revision,
            changed.map((row) => row.id),
          );
          for (const row of changed) {
            const data = Object.fromEntries(
              Object.entries(asObject(row.data)).flatMap(([column, value]) => (remove.has(column) ? [] : [[rename[column] ?? column, value]])),
            );
            await insertTestsetRows(ctx, tx, testsetId, current.revision, row.position, [{ ...keptOf(row), data }]);
          }
        }
        if (rows.length < REWRITE_CHUNK) break;
        afterPosition = rows[rows.length - 1].position;
      }
      const testset = await tx.testset.update({
        where: { id: testsetId },
        data: { columns: columns.flatMap((column) => (remove.has(column) ? [] : [rename[column] ?? column])) },
      });
      await recordRevision(tx, testset, 'columns_changed');
      return testset;
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}
