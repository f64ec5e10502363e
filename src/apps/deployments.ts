// Environments and deployments of an app (docs/deployments.md): which variant revision each
// environment serves, who deployed it and when. A deployment moves the environment to a revision,
// adds a row to its history and an event to the audit log, in one transaction; a rollback is a
// deployment of an older revision.
import { createHash } from 'node:crypto';
import { auditByCaller, recordAudit } from '../auth/audit/operations.js';
import type { RequestContext } from '../shared/context.js';
import { isUniqueViolation } from '../shared/db.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { DeployInput } from './inputs.js';
import { defaultEnvironments, getApp } from './operations.js';

const deployed = { revision: { include: { variant: { select: { id: true, name: true, kind: true } } } } } as const;

/**
 * The default environments of an app made before environments existed, made on first use: a
 * migration cannot make rows with ids on both databases alike. Creating one twice is harmless.
 */
async function ensureDefaults(ctx: RequestContext, appId: string): Promise<void> {
  const present = new Set((await ctx.db.environment.findMany({ where: { appId }, select: { name: true } })).map((env) => env.name));
  for (const name of defaultEnvironments.filter((env) => !present.has(env))) {
    try {
      await ctx.db.environment.create({ data: { projectId: ctx.projectId, appId, name } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
}

export async function listEnvironments(ctx: RequestContext, appId: string) {
  await getApp(ctx, appId);
  await ensureDefaults(ctx, appId);
  return ctx.db.environment.findMany({ where: { appId }, orderBy: { id: 'asc' }, include: deployed });
}

export type EnvironmentRow = Awaited<ReturnType<typeof listEnvironments>>[number];

export async function getEnvironment(ctx: RequestContext, appId: string, name: string): Promise<EnvironmentRow> {
  await getApp(ctx, appId);
  if ((defaultEnvironments as readonly string[]).includes(name)) await ensureDefaults(ctx, appId);
  const environment = await ctx.db.environment.findUnique({ where: { appId_name: { appId, name } }, include: deployed });
  if (!environment) throw new NotFoundError('Environment', `${appId}/${name}`);
  return environment;
}

export async function createEnvironment(ctx: RequestContext, appId: string, name: string): Promise<EnvironmentRow> {
  await getApp(ctx, appId);
  await ensureDefaults(ctx, appId);
  try {
    return await ctx.db.$transaction(async (tx) => {
      const environment = await tx.environment.create({ data: { projectId: ctx.projectId, appId, name }, include: deployed });
      await recordAudit(
        tx,
        auditByCaller(ctx, 'environment.created', { target: { type: 'environment', id: environment.id }, details: { app_id: appId, name } }),
      );
      return environment;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`An environment named ${name} already exists in app ${appId}`);
    throw error;
  }
}

/** Deletes an app's own environment with its history; the default ones stay. */
export async function deleteEnvironment(ctx: RequestContext, appId: string, name: string): Promise<EnvironmentRow> {
  const environment = await getEnvironment(ctx, appId, name);
  if ((defaultEnvironments as readonly string[]).includes(name)) throw new ConflictError(`The environment ${name} is one of every app's and cannot be deleted`);
  await ctx.db.$transaction(async (tx) => {
    await tx.environment.delete({ where: { id: environment.id } });
    await recordAudit(tx, auditByCaller(ctx, 'environment.deleted', { target: { type: 'environment', id: environment.id }, details: { app_id: appId, name } }));
  });
  return environment;
}

/**
 * Deploys a revision of one of the app's variants (its newest when `revision` is absent) to the
 * environment, creating an app's own environment on the way when `create` is set (Langfuse's
 * labels do). A variant of another app, or of another project, is a 404 as an unknown one.
 */
export async function deploy(
  ctx: RequestContext,
  appId: string,
  name: string,
  input: DeployInput,
  options: { create?: boolean } = {},
): Promise<EnvironmentRow> {
  await getApp(ctx, appId);
  const variant = await ctx.db.variant.findFirst({ where: { id: input.variant_id, appId, projectId: ctx.projectId }, select: { id: true, revision: true } });
  if (!variant) throw new NotFoundError('Variant', input.variant_id);
  const number = input.revision ?? variant.revision;
  const revision = await ctx.db.variantRevision.findUnique({ where: { variantId_revision: { variantId: variant.id, revision: number } } });
  if (!revision) throw new NotFoundError('Revision', `${variant.id}/${number}`);
  if (options.create && !(await ctx.db.environment.findUnique({ where: { appId_name: { appId, name } } }))) {
    await createEnvironment(ctx, appId, name).catch((error: unknown) => {
      if (!(error instanceof ConflictError)) throw error;
    });
  }
  const environment = await getEnvironment(ctx, appId, name);
  const { actor } = ctx.principal;
  await ctx.db.$transaction(async (tx) => {
    await tx.environment.update({ where: { id: environment.id }, data: { revisionId: revision.id, deployedAt: new Date() } });
    await tx.deployment.create({
      data: { environmentId: environment.id, revisionId: revision.id, actorType: actor.type, actorId: actor.id, actorLabel: actor.label },
    });
    await recordAudit(
      tx,
      auditByCaller(ctx, 'deployment.created', {
        target: { type: 'environment', id: environment.id },
        details: { app_id: appId, environment: name, variant_id: variant.id, revision: number, previous_revision_id: environment.revisionId },
      }),
    );
  });
  return getEnvironment(ctx, appId, name);
}

/** An environment's deployments, the newest first: what a rollback picks from. */
export async function listDeployments(ctx: RequestContext, appId: string, name: string) {
  const environment = await getEnvironment(ctx, appId, name);
  return ctx.db.deployment.findMany({
    where: { environmentId: environment.id },
    orderBy: { id: 'desc' },
    include: { environment: { select: { name: true, appId: true } }, ...deployed },
  });
}

export type DeploymentRow = Awaited<ReturnType<typeof listDeployments>>[number];

/** What an environment serves now; a 404 before its first deployment. */
export async function getDeployedRevision(ctx: RequestContext, appId: string, name: string) {
  const environment = await getEnvironment(ctx, appId, name);
  if (!environment.revision || !environment.deployedAt) throw new NotFoundError('Deployment', `${appId}/${name}`);
  return { environment, revision: environment.revision, deployedAt: environment.deployedAt };
}

/**
 * The entity tag of what an environment serves: a new one with every deployment (a redeployment
 * of the same revision too), so a cache revalidating with If-None-Match never keeps an old one.
 */
export function deploymentTag(revisionId: string, deployedAt: Date): string {
  return `"${createHash('sha256').update(`${revisionId}@${deployedAt.toISOString()}`).digest('base64url').slice(0, 27)}"`;
}
