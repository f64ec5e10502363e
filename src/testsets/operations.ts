// Test sets (docs/resources.md): a name and rows of column → value. Plain functions over Prisma,
// shared by REST and GraphQL; `query` is Pothos' planned include/select so nested fields load in
// the same SQL. Rows live in their own table, written in chunks and read in pages, so a
// 100,000-case set neither overflows a statement's parameters nor has to sit in memory to be run.
import { v7 as uuidv7 } from 'uuid';
import { getApp } from '../apps/operations.js';
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { Tx } from '../shared/sql.js';
import { nameFromFilename, parseCsvRows, parseJsonRows } from './files.js';
import type { CreateTestsetInput, TestsetRowData, UpdateTestsetInput, UploadTestsetInput } from './inputs.js';

type TestsetQuery = Omit<Prisma.TestsetFindFirstArgs, 'where'>;

/** A large set is written in one transaction; Prisma's 5 s default would cut it short. */
const WRITE_TIMEOUT_MS = 10 * 60 * 1000;

/** Column names in the order they are first seen across the rows. */
export function columnsOf(rows: readonly TestsetRowData[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  return [...columns];
}

/** Writes the rows at positions 0, 1, … (`createMany` took 10 s for 100,000 rows, this 1 s). */
async function insertTestsetRows(ctx: RequestContext, tx: Tx, testsetId: string, rows: readonly TestsetRowData[]): Promise<void> {
  await ctx.sql.insertRows(
    tx,
    'TestsetRow',
    ['id', 'testsetId', 'position', 'data'],
    rows.map((data, position) => [uuidv7(), testsetId, position, JSON.stringify(data)]),
  );
}

async function checkApp(ctx: RequestContext, appId: string | null | undefined): Promise<void> {
  if (appId) await getApp(ctx, appId);
}

export async function createTestset(ctx: RequestContext, input: CreateTestsetInput) {
  await checkApp(ctx, input.app_id);
  return ctx.db.$transaction(
    async (tx) => {
      const testset = await tx.testset.create({
        data: {
          projectId: ctx.projectId,
          appId: input.app_id || null,
          name: input.name,
          columns: columnsOf(input.csvdata),
          rowCount: input.csvdata.length,
        },
      });
      await insertTestsetRows(ctx, tx, testset.id, input.csvdata);
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
  return createTestset(ctx, { name, csvdata, app_id: input.app_id });
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

const allRows = { include: { rows: { orderBy: { position: 'asc' } } } } as const;
export type TestsetWithRows = Prisma.TestsetGetPayload<typeof allRows>;

/** The test set with every row in position order (REST answers them all, as Agenta does). */
export async function getTestsetWithRows(ctx: RequestContext, testsetId: string): Promise<TestsetWithRows> {
  return getTestset(ctx, testsetId, allRows);
}

/** Replaces the name and all rows in one transaction: readers see the old set or the new one. */
export async function updateTestset(ctx: RequestContext, testsetId: string, input: UpdateTestsetInput) {
  return ctx.db.$transaction(
    async (tx) => {
      // Found and changed in one statement, so a concurrent delete cannot slip in between.
      const { count } = await tx.testset.updateMany({
        where: { id: testsetId, projectId: ctx.projectId },
        data: { name: input.name, columns: columnsOf(input.csvdata), rowCount: input.csvdata.length },
      });
      if (count === 0) throw new NotFoundError('Testset', testsetId);
      await tx.testsetRow.deleteMany({ where: { testsetId } });
      await insertTestsetRows(ctx, tx, testsetId, input.csvdata);
      return tx.testset.findUniqueOrThrow({ where: { id: testsetId } });
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

export type TestsetRowRecord = Prisma.TestsetRowGetPayload<object>;

/** Rows of several test sets, each cut to the same window of positions (a GraphQL page). */
export interface RowWindow {
  /** Only rows after this position (exclusive). */
  afterPosition?: number;
  /** Only rows before this position (exclusive). */
  beforePosition?: number;
  /** At most this many rows per test set. */
  limit: number;
  /** Take the last rows of the window instead of the first (returned in descending order). */
  fromEnd?: boolean;
}

/** SQLite refuses a compound SELECT of more than 500 terms. */
const SETS_PER_STATEMENT = 200;

/**
 * The window of rows of each given test set, keyed by test set id; one SQL statement for up to
 * 200 sets. Each set is read through its (testsetId, position) index and stops at `limit`, where a
 * nested Prisma `take` would load every row of every set and cut them in memory.
 */
export async function readRowWindows(ctx: RequestContext, testsetIds: readonly string[], window: RowWindow): Promise<Map<string, TestsetRowRecord[]>> {
  const found = new Map<string, TestsetRowRecord[]>(testsetIds.map((id) => [id, []]));
  // SQL reads a negative LIMIT as "no limit": a page of nothing must not become the whole set.
  if (!(window.limit >= 1)) return found;
  const order = Prisma.raw(window.fromEnd ? 'DESC' : 'ASC');
  const after = window.afterPosition === undefined ? Prisma.empty : Prisma.sql` AND r."position" > ${window.afterPosition}`;
  const before = window.beforePosition === undefined ? Prisma.empty : Prisma.sql` AND r."position" < ${window.beforePosition}`;
  const ids = [...found.keys()];
  for (let start = 0; start < ids.length; start += SETS_PER_STATEMENT) {
    const branches = ids.slice(start, start + SETS_PER_STATEMENT).map(
      (testsetId, index) => Prisma.sql`SELECT * FROM (
        SELECT r."id", r."testsetId", r."position", r."data"
        FROM "TestsetRow" r JOIN "Testset" t ON t."id" = r."testsetId"
        WHERE r."testsetId" = ${testsetId} AND t."projectId" = ${ctx.projectId}${after}${before}
        ORDER BY r."position" ${order} LIMIT ${window.limit}
      ) AS ${Prisma.raw(`w${index}`)}`,
    );
    const rows = await ctx.db.$queryRaw<{ id: string; testsetId: string; position: number | bigint; data: unknown }[]>(Prisma.join(branches, ' UNION ALL '));
    for (const row of rows) {
      found.get(row.testsetId)?.push({
        id: row.id,
        testsetId: row.testsetId,
        position: Number(row.position),
        // SQLite hands a Json column to raw queries as its text; PostgreSQL as the value.
        data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Prisma.JsonValue,
      });
    }
  }
  // UNION ALL keeps no order between its terms, so each set's rows are put in order here.
  const direction = window.fromEnd ? -1 : 1;
  for (const rows of found.values()) rows.sort((a, b) => direction * (a.position - b.position));
  return found;
}

export interface RowPage {
  /** Rows after this position (exclusive); from the first row when absent. */
  afterPosition?: number;
  limit: number;
}

/**
 * One page of a test set's rows in position order, for runners that stream cases without
 * loading the whole set: pass the last row's `position` as `afterPosition` to get the next page.
 * One statement per page; a test set of another project (or a deleted one) reads as empty, so
 * check it with `getTestset` before the first page.
 */
export async function readTestsetRows(ctx: RequestContext, testsetId: string, page: RowPage): Promise<TestsetRowRecord[]> {
  const windows = await readRowWindows(ctx, [testsetId], page);
  return windows.get(testsetId) ?? [];
}
