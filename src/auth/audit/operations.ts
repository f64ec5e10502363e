// The audit log (docs/access.md#audit): who changed access, when and from where. An event is
// written in the same transaction as the change it records, so a change is never unrecorded and
// a failed change records nothing; a failed login, which changes nothing, is written on its own.
import { ownProject, requireScope, type Actor, type RequestContext, type RequestOrigin } from '../../shared/context.js';
import type { Prisma } from '../../shared/db.js';

export const auditActions = [
  'project.created',
  'project.updated',
  'api_key.created',
  'api_key.revoked',
  'user.created',
  'user.updated',
  'membership.added',
  'membership.role_changed',
  'membership.removed',
  'password_link.issued',
  'password.set',
  'login.succeeded',
  'login.failed',
  'logout',
  'environment.created',
  'environment.deleted',
  'deployment.created',
] as const;
export type AuditAction = (typeof auditActions)[number];

export interface AuditEntry {
  action: AuditAction;
  /** The project acted in; null for the instance's own events (a login, a user created). */
  projectId: string | null;
  actor: Actor;
  origin: RequestOrigin;
  target?: { type: string; id: string };
  /** What else the action carried (scopes, the roles before and after, why a login failed). */
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Prisma.TransactionClient, entry: AuditEntry): Promise<void> {
  await db.auditEvent.create({
    data: {
      action: entry.action,
      projectId: entry.projectId,
      actorType: entry.actor.type,
      actorId: entry.actor.id,
      actorLabel: entry.actor.label,
      targetType: entry.target?.type ?? null,
      targetId: entry.target?.id ?? null,
      details: entry.details ? JSON.stringify(entry.details) : null,
      ip: entry.origin.ip,
      userAgent: entry.origin.userAgent,
    },
  });
}

/** An event done by the caller of `ctx`, in its project. */
export function auditByCaller(
  ctx: RequestContext,
  action: AuditAction,
  fields: Pick<AuditEntry, 'target' | 'details'> & { projectId?: string | null } = {},
): AuditEntry {
  const { projectId = ctx.projectId, ...rest } = fields;
  return { action, projectId, actor: ctx.principal.actor, origin: ctx.origin, ...rest };
}

export type AuditEventRow = Prisma.AuditEventGetPayload<object>;

/** A window of the log, newest first: ids (UUID v7) order events in time. */
export interface AuditWindow {
  /** Only events older than this event id. */
  after?: string;
  /** Only events newer than this event id. */
  before?: string;
  limit: number;
  /** Take from the oldest end of the window, oldest first (Relay's `last`, which turns the page back). */
  fromOldest?: boolean;
}

/**
 * A project's audit log (needs the admin scope): its own events, and the instance's events about
 * its members (their logins, password changes), so a project admin sees who entered their project.
 * Failed logins for an email that matches no user are in no project's log (docs/access.md#audit).
 */
export async function listAuditEvents(ctx: RequestContext, projectId: string, filter: { action?: AuditAction }, window: AuditWindow): Promise<AuditEventRow[]> {
  return ctx.db.auditEvent.findMany({
    where: {
      ...(await projectLog(ctx, projectId)),
      ...(filter.action && { action: filter.action }),
      id: { ...(window.after && { lt: window.after }), ...(window.before && { gt: window.before }) },
    },
    orderBy: { id: window.fromOldest ? 'asc' : 'desc' },
    take: window.limit,
  });
}

/** The events of these ids in the caller's project's log, for `node(id:)`; none without the admin scope. */
export async function findAuditEvents(ctx: RequestContext, ids: readonly string[]): Promise<AuditEventRow[]> {
  if (!ctx.principal.scopes.includes('admin')) return [];
  return ctx.db.auditEvent.findMany({ where: { ...(await projectLog(ctx, ctx.projectId)), id: { in: [...ids] } } });
}

/** What a project's log holds (needs the admin scope), as a `where`. */
async function projectLog(ctx: RequestContext, projectId: string): Promise<Prisma.AuditEventWhereInput> {
  requireScope(ctx.principal, 'admin');
  const members = (await ctx.db.membership.findMany({ where: { projectId: ownProject(ctx, projectId) }, select: { userId: true } })).map((m) => m.userId);
  return {
    OR: [{ projectId }, { projectId: null, actorType: 'user', actorId: { in: members } }, { projectId: null, targetType: 'user', targetId: { in: members } }],
  };
}

/** What an event's `details` column holds, parsed. */
export function auditDetails(row: Pick<AuditEventRow, 'details'>): Record<string, unknown> | null {
  return row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>);
}
