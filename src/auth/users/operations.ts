// Users and their project memberships (docs/access.md#users): who belongs to a project and in which
// role, one-time links to set a password, and the first administrator. Every change is recorded in
// the audit log in the transaction that makes it (../audit/operations.ts).
import type { z } from 'zod';
import { ownProject, scopes as allScopes, systemActor, type Actor, type RequestContext, type RequestOrigin, type Scope } from '../../shared/context.js';
import { isUniqueViolation, type Db, type Prisma } from '../../shared/db.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { projectFields } from '../../projects/operations.js';
import type { SecretBox } from '../../shared/secrets.js';
import type { BulkSql } from '../../shared/sql.js';
import { auditByCaller, recordAudit, type AuditEntry } from '../audit/operations.js';
import type { addMemberInput, Role, setPasswordInput } from './inputs.js';
import { generateToken, KeyHasher } from '../keys/tokens.js';

import { hashPassword } from './passwords.js';

/** What a role may do, in the scopes keys carry (docs/access.md#roles). */
export const roleScopes: Record<Role, readonly Scope[]> = {
  admin: allScopes,
  member: ['read', 'write', 'ingest'],
  viewer: ['read'],
};

/** The scopes of a stored role; none for a value that is not one (never written, but read defensively). */
export function scopesOfRole(role: string): readonly Scope[] {
  return (roleScopes as Record<string, readonly Scope[] | undefined>)[role] ?? [];
}

/** How long a password link works (docs/access.md#password-links). */
export const PASSWORD_LINK_HOURS = 24;

const userFields = { id: true, email: true, name: true, isAdmin: true, passwordHash: true, createdAt: true } as const;
export type UserRow = Prisma.UserGetPayload<{ select: typeof userFields }>;

const memberFields = { role: true, createdAt: true, user: { select: userFields } } as const;
export type MemberRow = Prisma.MembershipGetPayload<{ select: typeof memberFields }>;

const membershipFields = { role: true, project: { select: projectFields } } as const;
export type MembershipRow = Prisma.MembershipGetPayload<{ select: typeof membershipFields }>;

/** A user as the audit log names them. */
export function userActor(user: { id: string | null; email: string }): Actor {
  return { type: 'user', id: user.id, label: user.email };
}

/** A user and the projects they belong to, by project name: what login and `GET /auth/me` answer. */
export async function userWithMemberships(db: Db, userId: string): Promise<{ user: UserRow; memberships: MembershipRow[] } | null> {
  const user = await db.user.findUnique({ where: { id: userId }, select: userFields });
  if (!user) return null;
  const memberships = await db.membership.findMany({ where: { userId }, select: membershipFields, orderBy: { project: { name: 'asc' } } });
  return { user, memberships };
}

/**
 * The users of these ids the caller may see, for `node(id:)`: itself, its project's members with
 * the admin scope (as `members`), anyone for an instance administrator and with auth off.
 */
export function findUsers(ctx: RequestContext, ids: readonly string[]): Promise<UserRow[]> {
  const { actor, instanceAdmin, scopes } = ctx.principal;
  const self = actor.type === 'user' && actor.id ? [{ id: actor.id }] : [];
  const members = scopes.includes('admin') ? [{ memberships: { some: { projectId: ctx.projectId } } }] : [];
  const reach = actor.type === 'system' || instanceAdmin ? {} : { OR: [...self, ...members] };
  return ctx.db.user.findMany({ where: { id: { in: [...ids] }, ...reach }, select: userFields });
}

/** The ids of the projects a user belongs to. */
export async function projectIdsOfUser(db: Db, userId: string): Promise<string[]> {
  return (await db.membership.findMany({ where: { userId }, select: { projectId: true } })).map((membership) => membership.projectId);
}

/** The instance administrator who made a project becomes its admin member, in the transaction that makes it. */
export async function addProjectCreator(tx: Prisma.TransactionClient, ctx: RequestContext, projectId: string, userId: string): Promise<void> {
  await tx.membership.create({ data: { projectId, userId, role: 'admin' } });
  await recordAudit(tx, auditByCaller(ctx, 'membership.added', { projectId, target: { type: 'user', id: userId }, details: { role: 'admin' } }));
}

/** A user's role in a project, for authentication: one read by the unique index. */
export function findMembership(sql: BulkSql, userId: string, projectId: string): Promise<{ role: string } | undefined> {
  return sql.first<{ role: string }>('SELECT "role" FROM "Membership" WHERE "projectId" = ? AND "userId" = ?', [projectId, userId]);
}

/** One of a user's memberships and how many they have, for a session without a project header. */
export function soleMembership(sql: BulkSql, userId: string): Promise<{ projectId: string; role: string; count: number | bigint | string } | undefined> {
  return sql.first(
    'SELECT "projectId", "role", (SELECT COUNT(*) FROM "Membership" WHERE "userId" = ?) AS "count" FROM "Membership" WHERE "userId" = ? LIMIT 1',
    [userId, userId],
  );
}

export function listMembers(ctx: RequestContext, projectId: string): Promise<MemberRow[]> {
  return ctx.db.membership.findMany({ where: { projectId: ownProject(ctx, projectId) }, select: memberFields, orderBy: { user: { email: 'asc' } } });
}

/** A user (made without a password when the email is new) added to the project in a role; 409 when already a member. */
export async function addMember(ctx: RequestContext, projectId: string, input: z.output<typeof addMemberInput>): Promise<MemberRow> {
  ownProject(ctx, projectId);
  try {
    return await ctx.db.$transaction(async (tx) => {
      let user = await tx.user.findUnique({ where: { email: input.email }, select: { id: true } });
      if (!user) {
        user = await tx.user.create({ data: { email: input.email }, select: { id: true } });
        await recordAudit(tx, auditByCaller(ctx, 'user.created', { target: { type: 'user', id: user.id }, details: { email: input.email } }));
      }
      const member = await tx.membership.create({ data: { projectId, userId: user.id, role: input.role }, select: memberFields });
      await recordAudit(tx, auditByCaller(ctx, 'membership.added', { target: { type: 'user', id: user.id }, details: { role: input.role } }));
      return member;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`${input.email} is already a member of this project`);
    throw error;
  }
}

/** Refuses a change that leaves the project without an admin member (docs/access.md#roles). */
async function keepAnAdmin(tx: Prisma.TransactionClient, projectId: string): Promise<void> {
  // Counted after the change, inside its transaction: two admins demoting each other at once cannot both pass.
  if ((await tx.membership.count({ where: { projectId, role: 'admin' } })) === 0) {
    throw new ConflictError('This is the last admin of the project: make another member admin first');
  }
}

export async function changeMemberRole(ctx: RequestContext, projectId: string, userId: string, role: Role): Promise<MemberRow> {
  ownProject(ctx, projectId);
  return ctx.db.$transaction(async (tx) => {
    const before = await tx.membership.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } });
    if (!before) throw new NotFoundError('member', userId);
    const member = await tx.membership.update({ where: { projectId_userId: { projectId, userId } }, data: { role }, select: memberFields });
    if (before.role === role) return member;
    if (before.role === 'admin') await keepAnAdmin(tx, projectId);
    await recordAudit(tx, auditByCaller(ctx, 'membership.role_changed', { target: { type: 'user', id: userId }, details: { from: before.role, to: role } }));
    return member;
  });
}

export async function removeMember(ctx: RequestContext, projectId: string, userId: string): Promise<void> {
  ownProject(ctx, projectId);
  await ctx.db.$transaction(async (tx) => {
    const before = await tx.membership.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } });
    if (!before) throw new NotFoundError('member', userId);
    await tx.membership.delete({ where: { projectId_userId: { projectId, userId } } });
    if (before.role === 'admin') await keepAnAdmin(tx, projectId);
    await recordAudit(tx, auditByCaller(ctx, 'membership.removed', { target: { type: 'user', id: userId }, details: { role: before.role } }));
  });
}

/** Password links' tokens are hashed under their own key (keys.ts). */
function linkHasher(secrets: SecretBox): KeyHasher {
  return new KeyHasher(secrets, 'password-link-hash');
}

/**
 * Whether the caller may issue a password link for `userId`: an instance administrator (or anyone
 * with auth off) for anyone;
 * a project's admin (key or user) for a member of the project who is not an instance administrator
 * and belongs to no project the caller does not administer, since a password opens every project
 * its user belongs to (docs/access.md#password-links).
 */
async function mayIssueLink(ctx: RequestContext, userId: string): Promise<void> {
  // With auth off the caller owns the instance (docs/access.md#modes).
  if (ctx.principal.instanceAdmin || ctx.principal.actor.type === 'system') {
    if (!(await ctx.db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw new NotFoundError('user', userId);
    return;
  }
  const target = await ctx.db.user.findUnique({ where: { id: userId }, select: { isAdmin: true, memberships: { select: { projectId: true } } } });
  if (!target || !target.memberships.some((membership) => membership.projectId === ctx.projectId)) throw new NotFoundError('user', userId);
  const { actor } = ctx.principal;
  const administered =
    actor.type === 'user' && actor.id
      ? new Set((await ctx.db.membership.findMany({ where: { userId: actor.id, role: 'admin' }, select: { projectId: true } })).map((row) => row.projectId))
      : new Set([ctx.projectId]);
  if (target.isAdmin || target.memberships.some((membership) => !administered.has(membership.projectId))) {
    throw new ForbiddenError('This user belongs to projects you do not administer: only an instance administrator can issue their password link');
  }
}

/**
 * A one-time link to set `userId`'s password, valid PASSWORD_LINK_HOURS, on the address the
 * request was sent to (the web UI's `/set-password` page). The token rides in the URL's fragment, which browsers never send to a server nor put in a Referer; only its keyed hash
 * is stored.
 */
export async function issuePasswordLink(ctx: RequestContext, userId: string): Promise<{ url: string; expiresAt: Date }> {
  await mayIssueLink(ctx, userId);
  const baseUrl = ctx.origin.url ?? '';
  const { actor } = ctx.principal;
  return createPasswordLink(ctx.db, ctx.secrets, { userId, createdById: actor.type === 'user' ? actor.id : null }, baseUrl, (tx, expiresAt) =>
    recordAudit(tx, auditByCaller(ctx, 'password_link.issued', { target: { type: 'user', id: userId }, details: { expires_at: expiresAt.toISOString() } })),
  );
}

async function createPasswordLink(
  db: Db,
  secrets: SecretBox,
  who: { userId: string; createdById: string | null },
  baseUrl: string,
  audit: (tx: Prisma.TransactionClient, expiresAt: Date) => Promise<void>,
) {
  const token = generateToken();
  const expiresAt = new Date(Date.now() + PASSWORD_LINK_HOURS * 3_600_000);
  await db.$transaction(async (tx) => {
    await tx.passwordLink.create({ data: { ...who, hash: linkHasher(secrets).hash(token), expiresAt } });
    await audit(tx, expiresAt);
  });
  return { url: `${baseUrl.replace(/\/$/, '')}/set-password#token=${token}`, expiresAt };
}

/**
 * Sets the password of a link's user and uses the link up, with every other link of theirs; their
 * sessions end (whoever held them no longer knows the password). A link unknown, used or expired
 * is a 422 naming `token`.
 */
export async function setPasswordByLink(db: Db, secrets: SecretBox, input: z.output<typeof setPasswordInput>, origin: RequestOrigin): Promise<void> {
  const invalid = () => ValidationError.at(['body', 'token'], 'This link is unknown, already used or expired: ask an administrator for a new one');
  const hash = linkHasher(secrets).hash(input.token);
  const link = await db.passwordLink.findUnique({
    where: { hash },
    select: { id: true, usedAt: true, expiresAt: true, user: { select: { id: true, email: true } } },
  });
  if (!link || link.usedAt || link.expiresAt.getTime() <= Date.now()) throw invalid();
  const passwordHash = await hashPassword(input.password);
  await db.$transaction(async (tx) => {
    const now = new Date();
    // Used once: of two requests with one token, only the first finds it unused.
    const { count } = await tx.passwordLink.updateMany({ where: { id: link.id, usedAt: null }, data: { usedAt: now } });
    if (count === 0) throw invalid();
    await tx.passwordLink.updateMany({ where: { userId: link.user.id, usedAt: null }, data: { usedAt: now } });
    await tx.user.update({ where: { id: link.user.id }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: link.user.id } });
    await recordAudit(tx, { action: 'password.set', projectId: null, actor: userActor(link.user), origin, target: { type: 'user', id: link.user.id } });
  });
}

/** Whether anyone could sign in: a user with a password. */
export async function anyUserCanSignIn(db: Db): Promise<boolean> {
  return (await db.user.findFirst({ where: { passwordHash: { not: null } }, select: { id: true } })) !== null;
}

/** An event of the service itself (ASSAY_INIT_ADMIN_*, the command line) about a user: no caller, no origin. */
function bySystem(action: AuditEntry['action'], userId: string, details: Record<string, unknown>, projectId: string | null = null): AuditEntry {
  return { action, projectId, actor: systemActor, origin: { ip: null, userAgent: null }, target: { type: 'user', id: userId }, details };
}

/**
 * ASSAY_INIT_ADMIN_*: when no user exists yet, the first instance administrator, an admin member
 * of the default project (so their requests need no project header until they make another).
 */
export async function ensureInitAdmin(db: Db, email: string, password: string, defaultProjectId: string): Promise<void> {
  if (await db.user.findFirst({ select: { id: true } })) return;
  const passwordHash = await hashPassword(password);
  await db.$transaction(async (tx) => {
    const user = await tx.user.create({ data: { email, passwordHash, isAdmin: true }, select: { id: true } });
    await tx.membership.create({ data: { projectId: defaultProjectId, userId: user.id, role: 'admin' } });
    await recordAudit(tx, bySystem('user.created', user.id, { email, instance_admin: true }));
    await recordAudit(tx, bySystem('membership.added', user.id, { role: 'admin' }, defaultProjectId));
  });
}

/** `npm run assay -- users create`: a user without a password (an instance administrator with `admin`) and a link to set one. */
export async function createUserWithLink(db: Db, secrets: SecretBox, email: string, admin: boolean, baseUrl: string) {
  const user = await db.$transaction(async (tx) => {
    const created = await tx.user.create({ data: { email, isAdmin: admin }, select: { id: true } }).catch((error: unknown) => {
      throw isUniqueViolation(error) ? new ConflictError(`A user with the email ${email} already exists`) : error;
    });
    await recordAudit(tx, bySystem('user.created', created.id, { email, instance_admin: admin }));
    return created;
  });
  return createPasswordLink(db, secrets, { userId: user.id, createdById: null }, baseUrl, (tx, expiresAt) =>
    recordAudit(tx, bySystem('password_link.issued', user.id, { expires_at: expiresAt.toISOString() })),
  );
}
