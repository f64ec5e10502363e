// Projects' API keys (docs/access.md): issued, listed without their secret, revoked at once. A
// caller reaches only its own project's keys; another project's id answers 404 like an unknown one.
import type { z } from 'zod';
import { createProject, listProjects } from '../projects/operations.js';
import { requireScope, scopes as allScopes, type RequestContext, type Scope } from '../shared/context.js';
import type { Db, Prisma } from '../shared/db.js';
import type { BulkSql } from '../shared/sql.js';
import { NotFoundError } from '../shared/errors.js';
import type { createApiKeyInput, createProjectInput } from './inputs.js';
import { generateKey, KeyHasher, keyPrefix } from './keys.js';

const keyFields = { id: true, projectId: true, name: true, prefix: true, scopes: true, createdAt: true, lastUsedAt: true } as const;

export type ApiKeyRow = Prisma.ApiKeyGetPayload<{ select: typeof keyFields }>;

/** The scopes a row stores, as a list (the column holds them comma-separated). */
export function scopesOf(row: { scopes: string }): Scope[] {
  return allScopes.filter((scope) => row.scopes.split(',').includes(scope));
}

/** `projectId` when it is the caller's project; otherwise 404, as for a project that does not exist. */
function ownProject(ctx: RequestContext, projectId: string): string {
  if (projectId !== ctx.projectId) throw new NotFoundError('project', projectId);
  return projectId;
}

/** A new key in `projectId` (also `npm run assay -- keys create`): its row, and the secret shown once. */
export async function issueApiKey(db: Prisma.TransactionClient, hasher: KeyHasher, projectId: string, name: string, scopes: readonly Scope[]) {
  const key = generateKey();
  const row = await db.apiKey.create({
    data: { projectId, name, prefix: keyPrefix(key), hash: hasher.hash(key), scopes: scopes.join(',') },
    select: keyFields,
  });
  return { row, key };
}

export async function createApiKey(ctx: RequestContext, projectId: string, input: z.output<typeof createApiKeyInput>) {
  requireScope(ctx.principal, 'admin');
  return issueApiKey(ctx.db, new KeyHasher(ctx.secrets), ownProject(ctx, projectId), input.name, input.scopes);
}

export function listApiKeys(ctx: RequestContext, projectId: string): Promise<ApiKeyRow[]> {
  requireScope(ctx.principal, 'admin');
  return ctx.db.apiKey.findMany({ where: { projectId: ownProject(ctx, projectId) }, select: keyFields, orderBy: { id: 'asc' } });
}

/** Deletes the key: the next request that presents it is refused (its row was the only way in). */
export async function revokeApiKey(ctx: RequestContext, id: string): Promise<void> {
  requireScope(ctx.principal, 'admin');
  const { count } = await ctx.db.apiKey.deleteMany({ where: { id, projectId: ctx.projectId } });
  if (count === 0) throw new NotFoundError('API key', id);
}

/** A new project with a first key holding every scope (whose secret only this answer carries). */
export function createProjectWithKey(ctx: RequestContext, input: z.output<typeof createProjectInput>) {
  requireScope(ctx.principal, 'admin');
  return ctx.db.$transaction(async (tx) => {
    const project = await createProject(tx, input.name);
    const { row, key } = await issueApiKey(tx, new KeyHasher(ctx.secrets), project.id, 'initial', allScopes);
    return { project, apiKey: row, key };
  });
}

/**
 * The caller's projects: the one its key belongs to. Without a key (auth off, docs/access.md#modes)
 * the caller owns the instance, so every project.
 */
export function callerProjects(ctx: RequestContext) {
  return listProjects(ctx.db, ctx.principal.apiKeyId === null ? null : [ctx.projectId]);
}

/** ASSAY_INIT_API_KEY: makes sure a key with exactly this value and every scope is in `projectId`. */
export async function ensureApiKey(db: Db, hasher: KeyHasher, projectId: string, key: string): Promise<void> {
  const hash = hasher.hash(key);
  const fields = { projectId, scopes: allScopes.join(',') };
  await db.apiKey.upsert({
    where: { hash },
    create: { ...fields, name: 'ASSAY_INIT_API_KEY', prefix: keyPrefix(key), hash },
    update: fields,
  });
}

export async function anyApiKeyExists(db: Db): Promise<boolean> {
  return (await db.apiKey.findFirst({ select: { id: true } })) !== null;
}

/** The key stored under `hash`, for authentication: one read by the unique index, on every request. */
export async function findApiKey(
  sql: BulkSql,
  hash: string,
): Promise<{ id: string; projectId: string; hash: string; scopes: string; lastUsedAt: Date | null } | undefined> {
  const row = await sql.first<{ id: string; projectId: string; hash: string; scopes: string; lastUsedAt: string | null }>(
    'SELECT "id", "projectId", "hash", "scopes", "lastUsedAt" FROM "ApiKey" WHERE "hash" = ?',
    [hash],
  );
  return row && { ...row, lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt) };
}

export async function noteKeyUse(db: Db, id: string, at: Date): Promise<void> {
  await db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
}
