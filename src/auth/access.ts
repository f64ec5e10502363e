// Who may call (docs/access.md). With auth off every request acts in the default project with
// every scope, which is the default only on a loopback HOST, where nobody else can reach the
// server. With auth on, a request's credentials choose its principal: the project it acts in and
// its scopes. `Authenticator.principal` is the one place credentials are read, for HTTP and gRPC
// alike: an API key (`Authorization`), or else a session cookie with the project it names
// (`X-Assay-Project`, docs/access.md#the-project-of-a-session).
import { LRUCache } from 'lru-cache';
import { isLoopbackName } from '../shared/http/browser.js';
import { type AssayEvents, follow } from '../shared/events.js';
import type { Config } from '../shared/config.js';
import { ConfigError } from '../shared/config.js';
import { projectExists } from '../projects/operations.js';
import type { Principal } from '../shared/context.js';
import { scopes as allScopes, servicePrincipal } from '../shared/context.js';
import type { Db } from '../shared/db.js';
import { NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors.js';
import type { SecretBox } from '../shared/secrets.js';
import type { BulkSql } from '../shared/sql.js';
import { KeyHasher, keyFromAuthorization } from './keys/tokens.js';
import { anyApiKeyExists, ensureApiKey, findApiKey, noteKeyUse, scopesOf, type StoredKey } from './keys/operations.js';
import { Sessions, type SignedIn } from './users/sessions.js';
import { anyUserCanSignIn, ensureInitAdmin, findMembership, scopesOfRole, soleMembership, userActor } from './users/operations.js';

declare module '../shared/context.js' {
  interface Services {
    /** Who may call: the routes of signing in reach the sessions through it (created by server.ts). */
    authenticator: Authenticator;
  }
}

/** The header a session request names its project with (docs/access.md#the-project-of-a-session). */
export const PROJECT_HEADER = 'x-assay-project';

/**
 * Refused (422 naming the header) when the principal acts in no project: a session of several
 * projects that named none, on a route or GraphQL field that needs one.
 */
export function requireProject(principal: Principal): void {
  if (principal.projectsToChooseFrom === undefined) return;
  throw ValidationError.at(
    ['header', PROJECT_HEADER],
    `You belong to ${principal.projectsToChooseFrom} projects: name the one to act in with the X-Assay-Project header (a project id, GET /auth/me lists them)`,
    'missing',
  );
}

/** Whether requests need credentials: ASSAY_AUTH, or by default whether HOST is reachable by others. */
export function authEnabled(config: Pick<Config, 'HOST' | 'ASSAY_AUTH'>): boolean {
  return config.ASSAY_AUTH === 'on' || (config.ASSAY_AUTH === undefined && !isLoopbackName(config.HOST));
}

/** What a request presents. */
export interface Credentials {
  /** The `Authorization` header (HTTP) or metadata (gRPC). */
  authorization?: string;
  /** The `Cookie` header: a session's, read only without `authorization`. */
  cookie?: string;
  /** `X-Assay-Project`: the project a session acts in. */
  project?: string;
  /** The request may act in no project (`routeNeedsProject`), so a session of several needs no header. */
  projectOptional?: boolean;
}

/** `lastUsedAt` is written at most this often per key, not on every request (docs/access.md#decisions). */
const LAST_USE_RESOLUTION_MS = 60_000;
/**
 * How long a key found is trusted without reading it again: the safety net behind the invalidation
 * by events, should one be missed (docs/access.md#the-key-cache).
 */
const KEY_CACHE_TTL_MS = 30_000;
const KEY_CACHE_ENTRIES = 10_000;

export class Authenticator {
  private readonly hasher: KeyHasher;
  private readonly anonymous: Principal;
  /** Keys whose last use is being written, so a burst of requests writes it once. */
  private readonly noting = new Set<string>();
  /**
   * Keys by hash, as their lookup's promise: cached when the lookup starts, so a revoke that drops
   * it meanwhile also drops the answer under way. Keys not found are not kept.
   */
  private readonly keys = new LRUCache<string, Promise<(StoredKey & { lastUsedAt: Date | null }) | undefined>>({
    max: KEY_CACHE_ENTRIES,
    ttl: KEY_CACHE_TTL_MS,
  });

  constructor(
    private readonly db: Db,
    private readonly sql: BulkSql,
    secrets: SecretBox,
    readonly enabled: boolean,
    defaultProjectId: string,
    private readonly onError: (error: unknown) => void,
    readonly sessions: Sessions,
    private readonly events: AssayEvents,
  ) {
    this.hasher = new KeyHasher(secrets);
    this.anonymous = servicePrincipal(defaultProjectId);
    // A key revoked or changed in any instance, or events missed: every key is read again (lookups
    // under way too, as their promises go with the cache). Changes are rare; reads are one each.
    for (const topic of ['apiKeys:changed', 'events:missed'] as const) follow(events, topic, () => this.keys.clear());
  }

  /**
   * The start's checks and set-up: ASSAY_INIT_API_KEY is made sure of, ASSAY_INIT_ADMIN_* made the
   * first user when none exists, and with auth on a server nobody could get into (no key, no user
   * with a password) refuses to start, saying how to make the first key or administrator.
   */
  async prepare(config: Pick<Config, 'HOST' | 'ASSAY_AUTH' | 'ASSAY_INIT_API_KEY' | 'ASSAY_INIT_ADMIN_EMAIL' | 'ASSAY_INIT_ADMIN_PASSWORD'>): Promise<void> {
    if (config.ASSAY_INIT_API_KEY) {
      // Its scopes or project may have changed: instances already running read it again.
      this.events.publish('apiKeys:changed', await ensureApiKey(this.db, this.hasher, this.anonymous.projectId, config.ASSAY_INIT_API_KEY));
    }
    if (config.ASSAY_INIT_ADMIN_EMAIL && config.ASSAY_INIT_ADMIN_PASSWORD) {
      await ensureInitAdmin(this.db, config.ASSAY_INIT_ADMIN_EMAIL, config.ASSAY_INIT_ADMIN_PASSWORD, this.anonymous.projectId);
    }
    if (this.enabled && !(await anyApiKeyExists(this.db)) && !(await anyUserCanSignIn(this.db))) {
      const why = config.ASSAY_AUTH === 'on' ? 'ASSAY_AUTH=on' : `HOST=${config.HOST} is not a loopback address, so credentials are required`;
      throw new ConfigError(
        `${why}, but no API key and no user with a password exist yet. Create the first key with ` +
          '`npm run assay -- keys create --project default --scopes read,write,ingest,admin`, or set ASSAY_INIT_API_KEY ' +
          'to a secret of 20+ characters (e.g. from `openssl rand -hex 24`), or set ASSAY_INIT_ADMIN_EMAIL and ' +
          'ASSAY_INIT_ADMIN_PASSWORD (12+ characters) to make the first administrator; or, to serve without credentials ' +
          '(anyone who reaches the port can then read and change everything), set ASSAY_AUTH=off. See docs/access.md',
      );
    }
  }

  /**
   * The principal of a request: with auth off, the default project with every scope; with an
   * `Authorization` header, its API key's; without one, the session of its cookie in the project
   * it names; 401 otherwise. Each lookup is one read by a unique index: on SQLite a prepared
   * statement answered synchronously underneath, on PostgreSQL a round trip to the pool
   * (docs/database.md#raw-sql).
   */
  async principal(credentials: Credentials): Promise<Principal> {
    if (!this.enabled) return this.anonymous;
    if (credentials.authorization === undefined) {
      const token = Sessions.token(credentials.cookie);
      if (token) return this.userPrincipal(await this.sessions.signedIn(token), credentials.project, credentials.projectOptional ?? false);
    }
    const key = keyFromAuthorization(credentials.authorization);
    if (!key) throw new UnauthorizedError('An API key or a session is required: send Authorization: Bearer <key>, or sign in (docs/access.md)');
    const hash = this.hasher.hash(key);
    const row = await this.lookUp(hash);
    if (!row || !KeyHasher.same(row.hash, hash)) throw new UnauthorizedError('The API key is not valid');
    this.noteUse(row);
    return { projectId: row.projectId, scopes: scopesOf(row), actor: { type: 'api_key', id: row.id, label: `${row.name} (${row.prefix}…)` } };
  }

  /** The signed-in user of a cookie, for the routes of the session itself (`GET /auth/me`); 401 without one. */
  signedIn(credentials: Credentials): Promise<SignedIn> {
    const token = Sessions.token(credentials.cookie);
    if (!token) throw new UnauthorizedError('Not signed in: POST /auth/login first', 'session');
    return this.sessions.signedIn(token);
  }

  /**
   * A session acting in the project of `X-Assay-Project` with its role's scopes (every scope for an
   * instance administrator, in any project). Without the header, the user's one project; a user of
   * several must name one (422), but for what acts in no project (`projectOptional`: listing or
   * creating projects), which it may do without. A project the user is not a member of is 404, as
   * one that does not exist.
   */
  private async userPrincipal(user: SignedIn, project: string | undefined, projectOptional: boolean): Promise<Principal> {
    const actor = userActor({ id: user.userId, email: user.email });
    const instanceAdmin = user.isAdmin;
    if (project !== undefined) {
      const membership = await findMembership(this.sql, user.userId, project);
      if (!membership && !(instanceAdmin && (await projectExists(this.sql, project)))) throw new NotFoundError('project', project);
      return { projectId: project, scopes: instanceAdmin ? allScopes : scopesOfRole(membership?.role ?? ''), actor, instanceAdmin };
    }
    const sole = await soleMembership(this.sql, user.userId);
    if (sole && Number(sole.count) === 1)
      return { projectId: sole.projectId, scopes: instanceAdmin ? allScopes : scopesOfRole(sole.role), actor, instanceAdmin };
    const projectsToChooseFrom = Number(sole?.count ?? 0);
    const principal: Principal = {
      // Never read for what acts in no project; one of the user's own projects all the same. Every
      // role holds `read`, which `GET /projects` needs.
      projectId: sole?.projectId ?? this.anonymous.projectId,
      scopes: instanceAdmin ? allScopes : sole ? ['read'] : [],
      actor,
      instanceAdmin,
      projectsToChooseFrom,
    };
    if (!projectOptional) requireProject(principal);
    return principal;
  }

  /** The key stored under `hash`: from the cache, or read (one indexed read) and kept if found. */
  private lookUp(hash: string) {
    let found = this.keys.get(hash);
    if (!found) {
      const lookup = findApiKey(this.sql, hash);
      found = lookup;
      this.keys.set(hash, lookup);
      lookup.then(
        (row) => {
          if (!row && this.keys.get(hash) === lookup) this.keys.delete(hash);
        },
        () => {
          if (this.keys.get(hash) === lookup) this.keys.delete(hash);
        },
      );
    }
    return found;
  }

  /** Writes the key's last use when the stored one is over a minute old; never delays the request. */
  private noteUse(row: { id: string; lastUsedAt: Date | null }): void {
    const { id, lastUsedAt } = row;
    const now = new Date();
    if ((lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USE_RESOLUTION_MS) || this.noting.has(id)) return;
    // The cached row holds the use now written, so the next requests do not write it again.
    row.lastUsedAt = now;
    this.noting.add(id);
    noteKeyUse(this.db, id, now)
      .catch(this.onError)
      .finally(() => this.noting.delete(id));
  }
}
