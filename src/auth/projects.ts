// Projects as a caller reaches them (docs/access.md#projects-and-keys): the ones it may act in, a
// new one made with its first key, a project's settings changed. What a project is and its table
// are src/projects'; this is access: keys, memberships and the audit log of each change.
import type { z } from 'zod';
import { createProject, listProjects, setProjectRetention } from '../projects/operations.js';
import type { createProjectInput, updateProjectInput } from '../projects/inputs.js';
import { ownProject, requireScope, scopes as allScopes, type RequestContext } from '../shared/context.js';
import { ForbiddenError } from '../shared/errors.js';
import { auditByCaller, recordAudit } from './audit/operations.js';
import { issueApiKey, issuedByCaller } from './keys/operations.js';
import { KeyHasher } from './keys/tokens.js';
import { addProjectCreator, projectIdsOfUser } from './users/operations.js';

/**
 * A new project with a first key holding every scope (whose secret only this answer carries). A
 * signed-in user must be an instance administrator, and becomes the project's admin member.
 */
export function createProjectWithKey(ctx: RequestContext, input: z.output<typeof createProjectInput>) {
  requireScope(ctx.principal, 'admin');
  const { actor, instanceAdmin } = ctx.principal;
  if (actor.type === 'user' && !instanceAdmin) throw new ForbiddenError('Only an instance administrator can create projects');
  const hasher = new KeyHasher(ctx.secrets);
  return ctx.db.$transaction(async (tx) => {
    const project = await createProject(tx, input.name);
    await recordAudit(
      tx,
      auditByCaller(ctx, 'project.created', { projectId: project.id, target: { type: 'project', id: project.id }, details: { name: project.name } }),
    );
    const { row, key } = await issueApiKey(tx, hasher, project.id, 'initial', allScopes, issuedByCaller(ctx));
    if (actor.type === 'user' && actor.id) await addProjectCreator(tx, ctx, project.id, actor.id);
    return { project, apiKey: row, key };
  });
}

/**
 * Changes a project's settings (its retention, docs/observability.md#retention); the audit log
 * records them before and after. 404 for a project the caller does not act in.
 */
export function updateProject(ctx: RequestContext, projectId: string, input: z.output<typeof updateProjectInput>) {
  requireScope(ctx.principal, 'admin');
  const id = ownProject(ctx, projectId);
  return ctx.db.$transaction(async (tx) => {
    const { before, after } = await setProjectRetention(tx, id, input.retention_days);
    if (before.retentionDays !== after.retentionDays) {
      await recordAudit(
        tx,
        auditByCaller(ctx, 'project.updated', {
          target: { type: 'project', id },
          details: { retention_days: { before: before.retentionDays, after: after.retentionDays } },
        }),
      );
    }
    return after;
  });
}

/**
 * The caller's projects: the one its key belongs to, a user's memberships'. Without a key (auth
 * off, docs/access.md#modes) the caller owns the instance, so every project, as for an instance
 * administrator.
 */
export async function callerProjects(ctx: RequestContext) {
  const { actor, instanceAdmin } = ctx.principal;
  if (actor.type === 'system' || instanceAdmin) return listProjects(ctx.db, null);
  if (actor.type === 'user' && actor.id) return listProjects(ctx.db, await projectIdsOfUser(ctx.db, actor.id));
  return listProjects(ctx.db, [ctx.projectId]);
}
