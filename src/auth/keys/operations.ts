// Projects' API keys (docs/access.md): issued, listed without their secret, revoked at once. A
// caller reaches only its own project's keys; another project's id answers 404 like an unknown one.
import type { z } from 'zod';
import {
  ownProject,
  requireScope,
  scopes as allScopes,
  systemActor,
  type Actor,
  type RequestContext,
  type RequestOrigin,
  type Scope,
} from '../../shared/context.js';
import type { Db, Prisma } from '../../shared/db.js';
import type { BulkSql } from '../../shared/sql.js';
import { NotFoundError } from '../../shared/errors.js';
import { auditByCaller, recordAudit } from '../audit/operations.js';
import type { createApiKeyInput } from './inputs.js';
import { generateKey, KeyHasher, keyPrefix } from './tokens.js';

const keyFields = { id: true, projectId: true, name: true, prefix: true, scopes: true, createdAt: true, lastUsedAt: true } as const;

export type ApiKeyRow = Prisma.ApiKeyGetPayload<{ select: typeof keyFields }>;

/** The scopes a row stores, as a list (the column holds them comma-separated). */
export function scopesOf(row: { scopes: string }): Scope[] {
  return allScopes.filter((scope) => row.scopes.split(',').includes(scope));
}

/** Who issues a key, for the audit log: a caller, or the service itself (ASSAY_INIT_API_KEY, the command line). */
export interface IssuedBy {
  actor: Actor;
  origin: RequestOrigin;
  /** How a key the service issues for itself came to be. */
  source?: 'ASSAY_INIT_API_KEY' | 'cli';
}

export function issuedByCaller(ctx: RequestContext): IssuedBy {
  return { actor: ctx.principal.actor, origin: ctx.origin };
}

export function issuedBySystem(source: IssuedBy['source']): IssuedBy {
  return { actor: systemActor, origin: { ip: null, userAgent: null }, source };
}

/**
 * A new key in `projectId` (also `npm run assay -- keys create`): its row, and the secret shown
 * once. Recorded in the audit log in the same transaction.
 */
export async function issueApiKey(db: Prisma.TransactionClient, hasher: KeyHasher, projectId: string, name: string, scopes: readonly Scope[], by: IssuedBy) {
  const key = generateKey();
  const row = await db.apiKey.create({
    data: { projectId, name, prefix: keyPrefix(key), hash: hasher.hash(key), scopes: scopes.join(',') },
    select: keyFields,
  });
  await recordApiKeyCreated(db, row, by);
  return { row, key };
}

function recordApiKeyCreated(db: Prisma.TransactionClient, row: Pick<ApiKeyRow, 'id' | 'projectId' | 'name' | 'prefix' | 'scopes'>, by: IssuedBy) {
  return recordAudit(db, {
    action: 'api_key.created',
    projectId: row.projectId,
    actor: by.actor,
    origin: by.origin,
    target: { type: 'api_key', id: row.id },
    details: { name: row.name, prefix: row.prefix, scopes: scopesOf(row), ...(by.source && { source: by.source }) },
  });
}

export async function createApiKey(ctx: RequestContext, projectId: string, input: z.output<typeof createApiKeyInput>) {
  requireScope(ctx.principal, 'admin');
  const hasher = new KeyHasher(ctx.secrets);
  const id = ownProject(ctx, projectId);
  return ctx.db.$transaction((tx) => issueApiKey(tx, hasher, id, input.name, input.scopes, issuedByCaller(ctx)));
}

export function listApiKeys(ctx: RequestContext, projectId: string): Promise<ApiKeyRow[]> {
  requireScope(ctx.principal, 'admin');
  return ctx.db.apiKey.findMany({ where: { projectId: ownProject(ctx, projectId) }, select: keyFields, orderBy: { id: 'asc' } });
}

/** The keys of these ids in the caller's project, for `node(id:)`; none without the admin scope. */
export function findApiKeys(ctx: RequestContext, ids: readonly string[]): Promise<ApiKeyRow[]> {
  if (!ctx.principal.scopes.includes('admin')) return Promise.resolve([]);
  return ctx.db.apiKey.findMany({ where: { id: { in: [...ids] }, projectId: ctx.projectId }, select: keyFields });
}

/**
 * Deletes the key: the next request that presents it, to any instance, is refused (its row was the
 * only way in; instances drop their cached keys on `apiKeys:changed`, sent before this answers).
 */
export async function revokeApiKey(ctx: RequestContext, id: string): Promise<void> {
  requireScope(ctx.principal, 'admin');
  await ctx.db.$transaction(async (tx) => {
    const row = await tx.apiKey.findFirst({ where: { id, projectId: ctx.projectId }, select: { name: true, prefix: true } });
    const { count } = await tx.apiKey.deleteMany({ where: { id, projectId: ctx.projectId } });
    if (!row || count === 0) throw new NotFoundError('API key', id);
    await recordAudit(tx, auditByCaller(ctx, 'api_key.revoked', { target: { type: 'api_key', id }, details: { name: row.name, prefix: row.prefix } }));
  });
  ctx.events.publish('apiKeys:changed', id);
  await ctx.events.flush();
}

/**
 * ASSAY_INIT_API_KEY: makes sure a key with exactly this value and every scope is in `projectId`;
 * the audit log records its first creation. Answers the key's id.
 */
export async function ensureApiKey(db: Db, hasher: KeyHasher, projectId: string, key: string): Promise<string> {
  const hash = hasher.hash(key);
  const fields = { projectId, scopes: allScopes.join(',') };
  return db.$transaction(async (tx) => {
    const [updated] = await tx.apiKey.updateManyAndReturn({ where: { hash }, data: fields, select: { id: true } });
    if (updated) return updated.id;
    const row = await tx.apiKey.create({ data: { ...fields, name: 'ASSAY_INIT_API_KEY', prefix: keyPrefix(key), hash }, select: keyFields });
    await recordApiKeyCreated(tx, row, issuedBySystem('ASSAY_INIT_API_KEY'));
    return row.id;
  });
}

export async function anyApiKeyExists(db: Db): Promise<boolean> {
  return (await db.apiKey.findFirst({ select: { id: true } })) !== null;
}

export interface StoredKey {
  id: string;
  projectId: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string;
}

/** The key stored under `hash`, for authentication: one read by the unique index, on every request. */
export async function findApiKey(sql: BulkSql, hash: string): Promise<(StoredKey & { lastUsedAt: Date | null }) | undefined> {
  const row = await sql.first<StoredKey & { lastUsedAt: string | null }>(
    'SELECT "id", "projectId", "name", "prefix", "hash", "scopes", "lastUsedAt" FROM "ApiKey" WHERE "hash" = ?',
    [hash],
  );
  return row && { ...row, lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt) };
}

export async function noteKeyUse(db: Db, id: string, at: Date): Promise<void> {
  await db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
}
