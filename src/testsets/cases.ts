// Cases by their stable id (docs/resources.md#case-ids): a row's versions share `caseId`, so a
// client that names its cases (Langfuse's dataset items, src/langfuse/datasets.ts) finds, edits,
// archives and deletes one by that name across revisions. Each write is a revision like any
// other. An archived case is taken out of the set (the revisions from then on lack it) and kept
// as a version whose range is empty (revisionTo = revisionFrom), which no revision holds; it is
// the case's latest version until the case is restored or deleted, which removes it.
import type { RequestContext } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { TestsetRowData } from './inputs.js';
import {
  closeRows,
  createTestset,
  insertTestsetRows,
  nextPosition,
  nextRevision,
  recordRevision,
  widenedColumns,
  WRITE_TIMEOUT_MS,
  type RowSource,
  type TestsetChange,
  type TestsetDetails,
  type TestsetRecord,
  type TestsetRowRecord,
} from './operations.js';

/** A case as its latest version shows it, with when it was first written and last changed. */
export interface CaseRecord {
  row: TestsetRowRecord;
  testset: { id: string; name: string };
  archived: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The oldest test set of the project with this name (names are not unique in Assay; Langfuse's are). */
export async function findTestsetByName(ctx: RequestContext, name: string): Promise<TestsetRecord> {
  const testset = await ctx.db.testset.findFirst({ where: { projectId: ctx.projectId, name }, orderBy: { id: 'asc' } });
  if (!testset) throw new NotFoundError('Testset', name);
  return testset;
}

/** Test sets of the project, oldest first, a page at a time, and how many there are. */
export async function pageTestsets(ctx: RequestContext, page: { skip: number; take: number }): Promise<{ testsets: TestsetRecord[]; total: number }> {
  const where = { projectId: ctx.projectId };
  const [testsets, total] = await Promise.all([ctx.db.testset.findMany({ where, orderBy: { id: 'asc' }, ...page }), ctx.db.testset.count({ where })]);
  return { testsets, total };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The test set named so, created without rows when there is none; a description or metadata
 * given that differs from the set's is written as a `described` revision.
 */
export async function upsertTestsetByName(ctx: RequestContext, name: string, details: TestsetDetails): Promise<TestsetRecord> {
  const existing = await ctx.db.testset.findFirst({ where: { projectId: ctx.projectId, name }, orderBy: { id: 'asc' } });
  if (!existing) return createTestset(ctx, { name, csvdata: [], ...details });
  const description = details.description ?? existing.description;
  const metadata = details.metadata ?? existing.metadata;
  if (description === existing.description && sameJson(metadata, existing.metadata)) return existing;
  return ctx.db.$transaction(async (tx) => {
    await nextRevision(ctx, tx, existing.id);
    const testset = await tx.testset.update({ where: { id: existing.id }, data: { description, metadata: metadata ?? Prisma.DbNull } });
    await recordRevision(tx, testset, 'described');
    return testset;
  });
}

/** The latest version of a case in the project, if any (deleted cases' versions included). */
async function latestVersion(ctx: RequestContext, tx: Prisma.TransactionClient, caseId: string) {
  return tx.testsetRow.findFirst({
    where: { caseId, testset: { projectId: ctx.projectId } },
    // Versions' ids are UUIDv7, so the newest written is the case's latest (revision numbers are per set).
    orderBy: { id: 'desc' },
    include: { testset: { select: { id: true, name: true } } },
  });
}

const isArchived = (row: Pick<TestsetRowRecord, 'revisionFrom' | 'revisionTo'>) => row.revisionTo === row.revisionFrom;

/** When each of these versions' cases was first written and when the version was: from the revisions' times. */
async function withTimes(ctx: RequestContext, rows: (TestsetRowRecord & { testset: { id: string; name: string } })[]): Promise<CaseRecord[]> {
  if (rows.length === 0) return [];
  const firsts = await ctx.db.testsetRow.groupBy({
    by: ['testsetId', 'caseId'],
    where: { OR: rows.map((row) => ({ testsetId: row.testsetId, caseId: row.caseId })) },
    _min: { revisionFrom: true },
  });
  const firstOf = new Map(firsts.map((group) => [`${group.testsetId}/${group.caseId}`, group._min.revisionFrom ?? 1]));
  const wanted = rows.flatMap((row) => [
    { testsetId: row.testsetId, number: row.revisionFrom },
    { testsetId: row.testsetId, number: firstOf.get(`${row.testsetId}/${row.caseId}`) ?? row.revisionFrom },
  ]);
  const revisions = await ctx.db.testsetRevision.findMany({ where: { OR: wanted }, select: { testsetId: true, number: true, createdAt: true } });
  const timeOf = new Map(revisions.map((revision) => [`${revision.testsetId}/${revision.number}`, revision.createdAt]));
  return rows.map(({ testset, ...row }) => {
    const updatedAt = timeOf.get(`${row.testsetId}/${row.revisionFrom}`) ?? new Date(0);
    const createdAt = timeOf.get(`${row.testsetId}/${firstOf.get(`${row.testsetId}/${row.caseId}`)}`) ?? updatedAt;
    return { row, testset, archived: isArchived(row), createdAt, updatedAt };
  });
}

/** A case by its id, current or archived; 404 for a deleted one, an unknown one and another project's. */
export async function getCase(ctx: RequestContext, caseId: string): Promise<CaseRecord> {
  const latest = await latestVersion(ctx, ctx.db, caseId);
  if (!latest || (latest.revisionTo !== null && !isArchived(latest))) throw new NotFoundError('TestsetCase', caseId);
  const [found] = await withTimes(ctx, [latest]);
  return found;
}

export interface CaseFilter {
  testsetId?: string;
  sourceTraceId?: string;
  sourceSpanId?: string;
  /** The cases of this revision of `testsetId` (archived ones are in none); the current and archived ones when absent. */
  revision?: number;
}

/** Cases in test set and position order, a page at a time, and how many match. */
export async function listCases(
  ctx: RequestContext,
  filter: CaseFilter,
  page: { skip: number; take: number },
): Promise<{ cases: CaseRecord[]; total: number }> {
  const versions: Prisma.TestsetRowWhereInput =
    filter.revision === undefined
      ? { OR: [{ revisionTo: null }, { revisionTo: { equals: ctx.db.testsetRow.fields.revisionFrom } }] }
      : { revisionFrom: { lte: filter.revision }, OR: [{ revisionTo: null }, { revisionTo: { gt: filter.revision } }] };
  const where: Prisma.TestsetRowWhereInput = {
    testset: { projectId: ctx.projectId },
    ...(filter.testsetId !== undefined ? { testsetId: filter.testsetId } : {}),
    ...(filter.sourceTraceId !== undefined ? { sourceTraceId: filter.sourceTraceId } : {}),
    ...(filter.sourceSpanId !== undefined ? { sourceSpanId: filter.sourceSpanId } : {}),
    ...versions,
  };
  const [rows, total] = await Promise.all([
    ctx.db.testsetRow.findMany({
      where,
      orderBy: [{ testsetId: 'asc' }, { position: 'asc' }, { revisionFrom: 'asc' }],
      include: { testset: { select: { id: true, name: true } } },
      ...page,
    }),
    ctx.db.testsetRow.count({ where }),
  ]);
  return { cases: await withTimes(ctx, rows), total };
}

/** The newest revision of the test set made at or before `at`; 0 (no rows) when it is older than the set. */
export async function revisionAt(ctx: RequestContext, testsetId: string, at: Date): Promise<number> {
  const revision = await ctx.db.testsetRevision.findFirst({
    where: { testsetId, testset: { projectId: ctx.projectId }, createdAt: { lte: at } },
    orderBy: { number: 'desc' },
    select: { number: true },
  });
  return revision?.number ?? 0;
}

/** A case as a client writes it by its id: its columns, and what is kept beside them. */
export interface CaseWrite {
  data: TestsetRowData;
  metadata: Prisma.JsonValue | null;
  source: RowSource | null;
  archived: boolean;
}

/**
 * Writes case `caseId` of the test set as one revision: a new case is appended (`rows_added`), a
 * current one gets a new version at its position (`rows_edited`), an archived one comes back at
 * the end (`rows_added`), and `archived` takes it out of the set (`rows_archived`). A case id the
 * project uses in another test set is a 409.
 */
export async function writeCase(ctx: RequestContext, testsetId: string, caseId: string, write: CaseWrite): Promise<CaseRecord> {
  await ctx.db.$transaction(
    async (tx) => {
      const current = await nextRevision(ctx, tx, testsetId);
      const { revision } = current;
      const latest = await latestVersion(ctx, tx, caseId);
      if (latest && latest.testsetId !== testsetId && (latest.revisionTo === null || isArchived(latest))) {
        throw new ConflictError(`The case id ${caseId} is a case of the test set ${latest.testset.name}: ids cannot be reused across test sets`);
      }
      const mine = latest?.testsetId === testsetId ? latest : null;
      const wasCurrent = mine?.revisionTo === null;
      const wasArchived = mine !== null && isArchived(mine);
      if (wasCurrent) await closeRows(tx, testsetId, revision, [mine.id]);
      // The archived version is in no revision: it goes, replaced by the new one.
      if (wasArchived) await tx.testsetRow.delete({ where: { id: mine.id } });
      const position = wasCurrent || (wasArchived && write.archived) ? mine.position : await nextPosition(tx, testsetId);
      const row = { data: write.data, caseId, metadata: write.metadata ?? undefined, source: write.source ?? undefined };
      await insertTestsetRows(ctx, tx, testsetId, revision, position, [row], write.archived ? revision : null);
      const change: TestsetChange = write.archived ? 'rows_archived' : wasCurrent ? 'rows_edited' : 'rows_added';
      const rowCount = Number(!write.archived) - Number(wasCurrent);
      const testset = await tx.testset.update({
        where: { id: testsetId },
        data: { rowCount: { increment: rowCount }, ...(write.archived ? {} : { columns: widenedColumns(current.columns, [write.data]) }) },
      });
      await recordRevision(tx, testset, change);
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
  return getCase(ctx, caseId);
}

/**
 * Deletes a case: a current one leaves the set as a revision (`rows_deleted`, and it stays in the
 * earlier ones, so a set may become empty); an archived one, in no revision, is removed.
 */
export async function deleteCase(ctx: RequestContext, caseId: string): Promise<void> {
  await ctx.db.$transaction(
    async (tx) => {
      const latest = await latestVersion(ctx, tx, caseId);
      if (latest && isArchived(latest)) {
        await tx.testsetRow.delete({ where: { id: latest.id } });
        return;
      }
      if (!latest || latest.revisionTo !== null) throw new NotFoundError('TestsetCase', caseId);
      const { revision } = await nextRevision(ctx, tx, latest.testsetId);
      await closeRows(tx, latest.testsetId, revision, [latest.id]);
      const testset = await tx.testset.update({ where: { id: latest.testsetId }, data: { rowCount: { decrement: 1 } } });
      await recordRevision(tx, testset, 'rows_deleted');
    },
    { timeout: WRITE_TIMEOUT_MS },
  );
}
