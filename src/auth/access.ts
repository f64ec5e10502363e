// Who may call (docs/access.md). With auth off every request acts in the default project with
// every scope, which is the default only on a loopback HOST, where nobody else can reach the
// server. With auth on, a request's credentials choose its principal: the project it acts in and
// its scopes. `Authenticator.principal` is the one place credentials are read, for HTTP and gRPC
// alike; a session cookie will be resolved beside the API key there.
import { isLoopbackName } from '../shared/http/browser.js';
import type { Config } from '../shared/config.js';
import { ConfigError } from '../shared/config.js';
import type { Principal } from '../shared/context.js';
import { servicePrincipal } from '../shared/context.js';
import type { Db } from '../shared/db.js';
import { UnauthorizedError } from '../shared/errors.js';
import type { SecretBox } from '../shared/secrets.js';
import type { BulkSql } from '../shared/sql.js';
import { KeyHasher, keyFromAuthorization } from './keys.js';
import { anyApiKeyExists, ensureApiKey, findApiKey, noteKeyUse, scopesOf } from './operations.js';

/** Whether requests need credentials: ASSAY_AUTH, or by default whether HOST is reachable by others. */
export function authEnabled(config: Pick<Config, 'HOST' | 'ASSAY_AUTH'>): boolean {
  return config.ASSAY_AUTH === 'on' || (config.ASSAY_AUTH === undefined && !isLoopbackName(config.HOST));
}

/** What a request presents. A session (cookie and chosen project) will join the API key here. */
export interface Credentials {
  /** The `Authorization` header (HTTP) or metadata (gRPC). */
  authorization?: string;
}

/** `lastUsedAt` is written at most this often per key, not on every request (docs/access.md#decisions). */
const LAST_USE_RESOLUTION_MS = 60_000;

export class Authenticator {
  private readonly hasher: KeyHasher;
  private readonly anonymous: Principal;
  /** Keys whose last use is being written, so a burst of requests writes it once. */
  private readonly noting = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly sql: BulkSql,
    secrets: SecretBox,
    readonly enabled: boolean,
    defaultProjectId: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.hasher = new KeyHasher(secrets);
    this.anonymous = servicePrincipal(defaultProjectId);
  }

  /**
   * The start's checks and set-up: ASSAY_INIT_API_KEY is made sure of, and with auth on a server
   * nobody could get into refuses to start, saying how to make the first key.
   */
  async prepare(config: Pick<Config, 'HOST' | 'ASSAY_AUTH' | 'ASSAY_INIT_API_KEY'>): Promise<void> {
    if (config.ASSAY_INIT_API_KEY) await ensureApiKey(this.db, this.hasher, this.anonymous.projectId, config.ASSAY_INIT_API_KEY);
    if (this.enabled && !(await anyApiKeyExists(this.db))) {
      const why = config.ASSAY_AUTH === 'on' ? 'ASSAY_AUTH=on' : `HOST=${config.HOST} is not a loopback address, so API keys are required`;
      throw new ConfigError(
        `${why}, but no API key exists yet. Create the first one with ` +
          '`npm run assay -- keys create --project default --scopes read,write,ingest,admin`, or set ASSAY_INIT_API_KEY ' +
          'to a secret of 20+ characters (e.g. from `openssl rand -hex 24`); or, to serve without keys (anyone who reaches ' +
          'the port can then read and change everything), set ASSAY_AUTH=off. See docs/access.md',
      );
    }
  }

  /**
   * The principal of a request: with auth off, the default project with every scope; 401 without a
   * valid key. On SQLite the lookup is one prepared read, answered synchronously underneath; on
   * PostgreSQL a round trip to the pool (docs/database.md#raw-sql).
   */
  async principal(credentials: Credentials): Promise<Principal> {
    if (!this.enabled) return this.anonymous;
    const key = keyFromAuthorization(credentials.authorization);
    if (!key) throw new UnauthorizedError('An API key is required: send Authorization: Bearer <key> (docs/access.md)');
    const hash = this.hasher.hash(key);
    const row = await findApiKey(this.sql, hash);
    if (!row || !KeyHasher.same(row.hash, hash)) throw new UnauthorizedError('The API key is not valid');
    this.noteUse(row.id, row.lastUsedAt);
    return { projectId: row.projectId, scopes: scopesOf(row), apiKeyId: row.id };
  }

  /** Writes the key's last use when the stored one is over a minute old; never delays the request. */
  private noteUse(id: string, lastUsedAt: Date | null): void {
    const now = new Date();
    if ((lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USE_RESOLUTION_MS) || this.noting.has(id)) return;
    this.noting.add(id);
    noteKeyUse(this.db, id, now)
      .catch(this.onError)
      .finally(() => this.noting.delete(id));
  }
}
