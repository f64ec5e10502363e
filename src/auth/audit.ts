// The audit log (docs/access.md#audit): who changed access, when and from where. An event is
// written in the same transaction as the change it records, so a change is never unrecorded and
// a failed change records nothing; a failed login, which changes nothing, is written on its own.
import type { Actor, RequestContext, RequestOrigin } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';

export const auditActions = [
  'project.created',
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
