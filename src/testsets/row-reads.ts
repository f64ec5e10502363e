// Reading test sets' rows and revisions (docs/resources.md): windows of rows for GraphQL pages,
// pages for runners that stream cases, and the revisions with their rows. Writes are in operations.ts.
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import { getTestset, type TestsetRowRecord } from './operations.js';

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
  /** The rows of this revision; the current ones when absent. */
  revision?: number;
}

/** Which versions of the rows a read sees: those of the revision, or the current ones. */
function revisionCondition(revision: number | undefined): Prisma.Sql {
  return revision === undefined
    ? Prisma.sql` AND r."revisionTo" IS NULL`
    : Prisma.sql` AND r."revisionFrom" <= ${revision} AND (r."revisionTo" IS NULL OR r."revisionTo" > ${revision})`;
}

type RawRow = Omit<TestsetRowRecord, 'position' | 'revisionFrom' | 'revisionTo' | 'data' | 'metadata'> & {
  position: number | bigint;
  revisionFrom: number | bigint;
  revisionTo: number | bigint | null;
  data: unknown;
  metadata: unknown;
};

/** SQLite hands a Json column to raw queries as its text; PostgreSQL as the value. */
const jsonOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Prisma.JsonValue;

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
  const versions = revisionCondition(window.revision);
  const ids = [...found.keys()];
  for (let start = 0; start < ids.length; start += SETS_PER_STATEMENT) {
    const branches = ids.slice(start, start + SETS_PER_STATEMENT).map(
      (testsetId, index) => Prisma.sql`SELECT * FROM (
        SELECT r."id", r."testsetId", r."position", r."data", r."revisionFrom", r."revisionTo", r."sourceTraceId", r."sourceSpanId", r."caseId", r."metadata"
        FROM "TestsetRow" r JOIN "Testset" t ON t."id" = r."testsetId"
        WHERE r."testsetId" = ${testsetId} AND t."projectId" = ${ctx.projectId}${versions}${after}${before}
        ORDER BY r."position" ${order} LIMIT ${window.limit}
      ) AS ${Prisma.raw(`w${index}`)}`,
    );
    const rows = await ctx.db.$queryRaw<RawRow[]>(Prisma.join(branches, ' UNION ALL '));
    for (const row of rows) {
      found.get(row.testsetId)?.push({
        id: row.id,
        testsetId: row.testsetId,
        position: Number(row.position),
        revisionFrom: Number(row.revisionFrom),
        revisionTo: row.revisionTo === null ? null : Number(row.revisionTo),
        sourceTraceId: row.sourceTraceId,
        sourceSpanId: row.sourceSpanId,
        caseId: row.caseId,
        data: jsonOf(row.data),
        metadata: row.metadata === null ? null : jsonOf(row.metadata),
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
  /** The rows of this revision (an evaluation's pinned one); the current ones when absent. */
  revision?: number;
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

export type TestsetRevisionRecord = Prisma.TestsetRevisionGetPayload<object>;

/** A test set's revisions, oldest first. */
export async function listRevisions(ctx: RequestContext, testsetId: string): Promise<TestsetRevisionRecord[]> {
  await getTestset(ctx, testsetId, { select: { id: true } });
  return ctx.db.testsetRevision.findMany({ where: { testsetId }, orderBy: { number: 'asc' } });
}

/** Revision `number` of the test set; 404 when the set (in this project) or the revision is unknown. */
export async function getRevision<Q extends Omit<Prisma.TestsetRevisionFindFirstArgs, 'where'> = object>(
  ctx: RequestContext,
  testsetId: string,
  number: number,
  query?: Q,
): Promise<Prisma.TestsetRevisionGetPayload<Q>> {
  const revision = await ctx.db.testsetRevision.findFirst({ ...query, where: { testsetId, number, testset: { projectId: ctx.projectId } } });
  if (!revision) throw new NotFoundError('TestsetRevision', `${testsetId}/${number}`);
  return revision as Prisma.TestsetRevisionGetPayload<Q>;
}

const ROW_PAGE = 5000;

/** Every row of one revision in position order, read a page at a time (REST answers them all). */
export async function readRevisionRows(ctx: RequestContext, testsetId: string, revision: number): Promise<TestsetRowRecord[]> {
  const rows: TestsetRowRecord[] = [];
  let afterPosition: number | undefined;
  for (;;) {
    const page = await readTestsetRows(ctx, testsetId, { afterPosition, limit: ROW_PAGE, revision });
    rows.push(...page);
    if (page.length < ROW_PAGE) return rows;
    afterPosition = page[page.length - 1].position;
  }
}

/** The rows of a test set with these ids (any revision), keyed by id; ids of other sets or projects are absent. */
export async function readRowsById(ctx: RequestContext, testsetId: string, rowIds: readonly string[]): Promise<Map<string, TestsetRowRecord>> {
  if (rowIds.length === 0) return new Map();
  const rows = await ctx.db.testsetRow.findMany({ where: { id: { in: [...new Set(rowIds)] }, testsetId, testset: { projectId: ctx.projectId } } });
  return new Map(rows.map((row) => [row.id, row]));
}
