// What every operation receives: the database, the project the caller acts in, and the
// service's shared parts. Every query an operation makes is scoped by `projectId`; the caller's
// credentials (an API key, docs/access.md) only choose it and the scopes it may use. The service's
// state lives here, not in modules (docs/architecture.md#state-lives-in-services); a domain adds its
// own part by augmenting `Services` where the part is typed (observability/ingestion/write-queue.ts, pricing/operations.ts).
import type { Dispatcher } from 'undici';
import type { Db } from './db.js';
import type { OutboundPolicy } from './http/outbound.js';
import { ForbiddenError, NotFoundError } from './errors.js';
import type { AssayEvents } from './events.js';
import type { Metrics } from './metrics.js';
import type { RateLimits } from './rate-limits.js';
import type { BulkSql } from './sql.js';
import type { SecretBox } from './secrets.js';
import type { CommitSync } from './wal-sync.js';

export interface Services {
  db: Db;
  /** Raw SQL for the hot paths in the database's dialect: bulk writes inside `db.$transaction`, reads (sql.ts). */
  sql: BulkSql;
  events: AssayEvents;
  /** Awaited before a write is acknowledged: it is on disk then (wal-sync.ts). */
  walSync: CommitSync;
  /** Seals secrets kept in the database (secrets.ts). */
  secrets: SecretBox;
  /** This instance's Prometheus registry and metrics (metrics.ts). */
  metrics: Metrics;
  /** Provider credentials from the environment (`OPENAI_API_KEY`, …), used when a request gives none. */
  providerEnv: Record<string, string>;
  /** Requests (and ingested spans) per minute per API key (rate-limits.ts). */
  rateLimits: RateLimits;
  /**
   * Every call the service makes (endpoints, webhooks, providers) goes through this: keep-alive
   * pools per origin, and the addresses it may reach checked at connect time (http/outbound.ts).
   */
  outbound: Dispatcher;
  /** The rule `outbound` applies, also applied to a URL when it is saved (an endpoint's `uri`, a `webhook_url`). */
  outboundPolicy: OutboundPolicy;
}

/**
 * What a credential may do (docs/access.md#scopes). `feedback` writes scores only, for a web
 * page's thumbs up (docs/scores.md#feedback-keys); `write` includes it.
 */
export const scopes = ['read', 'write', 'ingest', 'admin', 'feedback'] as const;
export type Scope = (typeof scopes)[number];

/**
 * Who acts: an API key, a signed-in user, or the service itself (`system`: auth off, background
 * runners, ASSAY_INIT_*, the command line). `label` is what identified it when it acted (a key's
 * name and prefix, a user's email), for the audit log (docs/access.md#audit).
 */
export interface Actor {
  type: 'api_key' | 'user' | 'system';
  id: string | null;
  label: string | null;
}

export const systemActor: Actor = { type: 'system', id: null, label: null };

/** Who is calling: the project they act in, what they may do there, and who they are. */
export interface Principal {
  projectId: string;
  scopes: readonly Scope[];
  actor: Actor;
  /** A signed-in instance administrator: reaches every project, may create projects and users (docs/access.md#roles). */
  instanceAdmin?: boolean;
  /**
   * Set for a session that named no project though it has not exactly one (how many it has): it
   * may do only what acts in no project, `GET /projects` or `createProject` (docs/access.md#the-project-of-a-session).
   */
  projectsToChooseFrom?: number;
}

/** The service acting for itself (auth off, background work): every scope in `projectId`. */
export function servicePrincipal(projectId: string): Principal {
  return { projectId, scopes, actor: systemActor };
}

/** Where a request came from, for the audit log; null for the service's own work. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  /** The scheme and host the request was sent to (behind a trusted proxy, the forwarded ones): where links to the service point. */
  url?: string;
}

const noOrigin: RequestOrigin = { ip: null, userAgent: null };

/** Refused (403) unless `principal` holds `scope`. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (scope === 'feedback' && principal.scopes.includes('write')) return;
  if (!principal.scopes.includes(scope))
    throw new ForbiddenError(principal.actor.type === 'user' ? `Your role in this project does not allow ${scope}` : `This API key lacks the ${scope} scope`);
}

/**
 * `projectId` when it is the project the caller acts in; otherwise 404, exactly as for a project
 * that does not exist, so ids of other projects give nothing away (docs/access.md#errors).
 */
export function ownProject(ctx: { projectId: string }, projectId: string): string {
  if (projectId !== ctx.projectId) throw new NotFoundError('project', projectId);
  return projectId;
}

export interface RequestContext extends Services {
  projectId: string;
  principal: Principal;
  origin: RequestOrigin;
  /** Per-request memo for DataLoaders; see `perRequest`. */
  memo: Map<symbol, unknown>;
}

export function requestContext(
  services: Services,
  projectId: string,
  principal: Principal = servicePrincipal(projectId),
  origin: RequestOrigin = noOrigin,
): RequestContext {
  return { ...services, projectId, principal, origin, memo: new Map() };
}

/** One instance of `make()` per request (a DataLoader batches and caches within one request). */
export function perRequest<T>(ctx: RequestContext, key: symbol, make: () => T): T {
  if (!ctx.memo.has(key)) ctx.memo.set(key, make());
  return ctx.memo.get(key) as T;
}
