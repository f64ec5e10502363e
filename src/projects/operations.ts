// Projects are the tenants (docs/resources.md#projects-and-access): every other row belongs to
// one. The default project is made at the first start; API keys and sessions (src/auth) choose
// the one a request acts in, and src/auth creates projects with their first key.
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { isUniqueViolation, type Db, type Prisma } from '../shared/db.js';
import type { BulkSql } from '../shared/sql.js';

export const DEFAULT_PROJECT_NAME = 'default';

/** The default project's id, creating the project on first start. */
export async function ensureDefaultProject(db: Db): Promise<string> {
  const project = await db.project.upsert({
    where: { name: DEFAULT_PROJECT_NAME },
    create: { name: DEFAULT_PROJECT_NAME },
    update: {},
    select: { id: true },
  });
  return project.id;
}

/** What every answer shows of a project (REST, GraphQL, a user's memberships). */
export const projectFields = { id: true, name: true, createdAt: true, retentionDays: true } as const;
export type ProjectRow = Prisma.ProjectGetPayload<{ select: typeof projectFields }>;

/** A new project; 409 when the name is taken. `db` may be a transaction. */
export async function createProject(db: Prisma.TransactionClient, name: string) {
  try {
    return await db.project.create({ data: { name }, select: projectFields });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ConflictError(`A project named ${JSON.stringify(name)} already exists`);
    }
    throw error;
  }
}

/** The projects with these ids (every project with `null`), by name. */
export function listProjects(db: Db, ids: readonly string[] | null) {
  return db.project.findMany({ where: ids ? { id: { in: [...ids] } } : {}, select: projectFields, orderBy: { name: 'asc' } });
}

/** Whether a project of this id exists: for an instance administrator's session naming it (src/auth), one read by the key. */
export async function projectExists(sql: BulkSql, id: string): Promise<boolean> {
  return (await sql.first('SELECT 1 AS "one" FROM "Project" WHERE "id" = ?', [id])) !== undefined;
}

export function findProjectByName(db: Db, name: string) {
  return db.project.findUnique({ where: { name }, select: projectFields });
}

/**
 * Sets how many days a project keeps its traces (null: the instance's ASSAY_RETENTION_DAYS, or
 * forever; undefined: unchanged); answers the project before and after. `db` is a transaction, for the audit record.
 */
export async function setProjectRetention(db: Prisma.TransactionClient, id: string, retentionDays: number | null | undefined) {
  const before = await db.project.findUnique({ where: { id }, select: projectFields });
  if (!before) throw new NotFoundError('project', id);
  const after = await db.project.update({ where: { id }, data: { retentionDays }, select: projectFields });
  return { before, after };
}

/** Every project's own retention in days (null: none set), for the retention sweeper (src/observability/retention/retention-sweeper.ts). */
export function projectRetentions(db: Db): Promise<{ id: string; retentionDays: number | null }[]> {
  return db.project.findMany({ select: { id: true, retentionDays: true }, orderBy: { id: 'asc' } });
}
