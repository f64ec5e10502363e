// Apps and their variants (docs/resources.md): plain functions over Prisma, shared by REST and
// GraphQL. `query` is Pothos' planned include/select, so GraphQL loads nested fields in the same
// SQL.
import type { RequestContext } from '../shared/context.js';
import { isUniqueViolation, type Prisma } from '../shared/db.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { toJson } from '../shared/json.js';
import type { CreateAppInput, CreateVariantInput, UpdateVariantParametersInput } from './inputs.js';
import { checkKindFields } from './inputs.js';
import { parseInput } from '../shared/validation.js';
import { z } from 'zod';

type AppQuery = Omit<Prisma.AppFindFirstArgs, 'where'>;
type VariantQuery = Omit<Prisma.VariantFindFirstArgs, 'where'>;

async function uniqueName<T>(write: Promise<T>, message: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(message);
    throw error;
  }
}

/** Every app has these environments (docs/deployments.md); an app may add its own. */
export const defaultEnvironments = ['development', 'staging', 'production'] as const;

export async function createApp(ctx: RequestContext, input: CreateAppInput) {
  return uniqueName(
    ctx.db.app.create({
      data: {
        projectId: ctx.projectId,
        name: input.app_name,
        environments: { create: defaultEnvironments.map((name) => ({ projectId: ctx.projectId, name })) },
      },
    }),
    `An app named ${input.app_name} already exists`,
  );
}

export async function listApps<Q extends AppQuery = object>(ctx: RequestContext, filter: { app_name?: string }, query?: Q): Promise<Prisma.AppGetPayload<Q>[]> {
  return ctx.db.app.findMany({
    orderBy: { id: 'asc' },
    ...(query as AppQuery),
    where: { projectId: ctx.projectId, ...(filter.app_name ? { name: filter.app_name } : {}) },
  }) as Promise<Prisma.AppGetPayload<Q>[]>;
}

export async function getApp<Q extends AppQuery>(ctx: RequestContext, appId: string, query?: Q) {
  const app = await ctx.db.app.findFirst({ ...query, where: { id: appId, projectId: ctx.projectId } });
  if (!app) throw new NotFoundError('App', appId);
  return app;
}

export async function renameApp(ctx: RequestContext, appId: string, input: CreateAppInput) {
  await getApp(ctx, appId);
  return uniqueName(ctx.db.app.update({ where: { id: appId }, data: { name: input.app_name } }), `An app named ${input.app_name} already exists`);
}

export async function deleteApp(ctx: RequestContext, appId: string) {
  await getApp(ctx, appId);
  await ctx.db.app.delete({ where: { id: appId } });
}

/** The newest revision rides along with every variant read, for its uri and parameters. */
const latestRevision = { revisions: { orderBy: { revision: 'desc' }, take: 1 } } as const;

export async function createVariant(ctx: RequestContext, appId: string, input: CreateVariantInput) {
  await getApp(ctx, appId);
  // Refused now as it would be when called (docs/access.md#outbound-calls).
  if (input.kind === 'endpoint' && input.uri) await ctx.outboundPolicy.checkSaved(input.uri, ['body', 'uri']);
  return uniqueName(
    ctx.db.variant.create({
      data: {
        projectId: ctx.projectId,
        appId,
        name: input.variant_name,
        kind: input.kind,
        revisions: {
          create: {
            revision: 1,
            uri: input.kind === 'endpoint' ? input.uri : null,
            parameters: toJson(input.parameters ?? {}),
            message: input.message ?? null,
          },
        },
      },
      include: latestRevision,
    }),
    `A variant named ${input.variant_name} already exists in app ${appId}`,
  );
}

type WithLatestRevision = { include: typeof latestRevision };
export type VariantWithRevision = Prisma.VariantGetPayload<WithLatestRevision>;

export async function listVariants<Q extends VariantQuery = WithLatestRevision>(
  ctx: RequestContext,
  appId: string,
  query: Q = { include: latestRevision } as Q,
): Promise<Prisma.VariantGetPayload<Q>[]> {
  await getApp(ctx, appId);
  return ctx.db.variant.findMany({
    orderBy: { id: 'asc' },
    ...(query as VariantQuery),
    where: { appId, projectId: ctx.projectId },
  }) as Promise<Prisma.VariantGetPayload<Q>[]>;
}

export async function getVariant<Q extends VariantQuery = WithLatestRevision>(
  ctx: RequestContext,
  variantId: string,
  query: Q = { include: latestRevision } as Q,
): Promise<Prisma.VariantGetPayload<Q>> {
  const variant = await ctx.db.variant.findFirst({ ...(query as VariantQuery), where: { id: variantId, projectId: ctx.projectId } });
  if (!variant) throw new NotFoundError('Variant', variantId);
  return variant as Prisma.VariantGetPayload<Q>;
}

/** A parameter change is a new revision; the old ones stay readable (and pinned by evaluations). */
export async function updateVariantParameters(ctx: RequestContext, variantId: string, input: UpdateVariantParametersInput) {
  const variant = await getVariant(ctx, variantId);
  const current = variant.revisions[0];
  const uri = input.uri ?? current?.uri ?? null;
  // The kind's rules hold for every revision: a prompt's parameters must stay runnable.
  parseInput(
    z.unknown().superRefine((_, refineCtx) => checkKindFields(variant.kind, { uri, parameters: input.parameters }, refineCtx)),
    input,
    'body',
  );
  if (input.uri) await ctx.outboundPolicy.checkSaved(input.uri, ['body', 'uri']);
  return ctx.db.$transaction(async (tx) => {
    // The increment is atomic, so two concurrent updates get distinct revision numbers.
    const { revision } = await tx.variant.update({
      where: { id: variantId },
      data: { revision: { increment: 1 } },
      select: { revision: true },
    });
    await tx.variantRevision.create({
      data: { variantId, revision, uri, parameters: toJson(input.parameters), message: input.message ?? null },
    });
    return tx.variant.findUniqueOrThrow({ where: { id: variantId }, include: latestRevision });
  });
}

/** Sets a variant's tags (Langfuse's prompt tags), the whole list. */
export async function setVariantTags(ctx: RequestContext, variantId: string, tags: readonly string[]) {
  await getVariant(ctx, variantId);
  await ctx.db.variant.update({ where: { id: variantId }, data: { tags: [...tags] } });
}

export async function listVariantRevisions(ctx: RequestContext, variantId: string) {
  await getVariant(ctx, variantId);
  return ctx.db.variantRevision.findMany({ where: { variantId }, orderBy: { revision: 'asc' } });
}

export async function getVariantRevision(ctx: RequestContext, variantId: string, revision: number) {
  await getVariant(ctx, variantId);
  const found = await ctx.db.variantRevision.findUnique({ where: { variantId_revision: { variantId, revision } } });
  if (!found) throw new NotFoundError('Revision', `${variantId}/${revision}`);
  return found;
}

export async function deleteVariant(ctx: RequestContext, variantId: string) {
  await getVariant(ctx, variantId);
  await ctx.db.variant.delete({ where: { id: variantId } });
}

/** The variants of an app, in the order asked, each with its newest revision; 404 for any that is not the app's. */
export async function getAppVariants(ctx: RequestContext, appId: string, variantIds: readonly string[]): Promise<VariantWithRevision[]> {
  await getApp(ctx, appId);
  const variants = await ctx.db.variant.findMany({
    where: { id: { in: [...variantIds] }, appId, projectId: ctx.projectId },
    include: latestRevision,
  });
  const byId = new Map(variants.map((variant) => [variant.id, variant]));
  return variantIds.map((id) => {
    const variant = byId.get(id);
    if (!variant) throw new NotFoundError('Variant', id);
    return variant;
  });
}

/** A revision by its id, with its variant's kind: what an evaluation pinned. */
export async function getRevisionById(ctx: RequestContext, revisionId: string) {
  const revision = await ctx.db.variantRevision.findFirst({
    where: { id: revisionId, variant: { projectId: ctx.projectId } },
    include: { variant: { select: { kind: true, name: true, appId: true } } },
  });
  if (!revision) throw new NotFoundError('Revision', revisionId);
  return revision;
}

/**
 * The app of this name, created (with the default environments) when the project has none: where
 * runs recorded from code go when the caller names no app (docs/experiments.md).
 */
export async function findOrCreateApp(ctx: RequestContext, name: string) {
  const found = await ctx.db.app.findFirst({ where: { projectId: ctx.projectId, name } });
  if (found) return found;
  try {
    return await createApp(ctx, { app_name: name });
  } catch (error) {
    // Created meanwhile by a concurrent call: read it.
    if (!(error instanceof ConflictError)) throw error;
    return ctx.db.app.findFirstOrThrow({ where: { projectId: ctx.projectId, name } });
  }
}

/**
 * The app's variant of this name with its newest revision, created as an endpoint variant without
 * a uri when missing: the variant a run recorded from code is named after (docs/experiments.md).
 */
export async function findOrCreateVariant(ctx: RequestContext, appId: string, name: string): Promise<VariantWithRevision> {
  const where = { appId, projectId: ctx.projectId, name };
  const found = await ctx.db.variant.findFirst({ where, include: latestRevision });
  if (found) return found;
  try {
    return await createVariant(ctx, appId, { variant_name: name, kind: 'endpoint', uri: null, parameters: null, message: 'Recorded from code' });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return ctx.db.variant.findFirstOrThrow({ where, include: latestRevision });
  }
}
