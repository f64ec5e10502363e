// Signed-in browsers (docs/access.md#sessions): a login checks a password, throttled per email and
// per address, and opens a session whose random token rides in the `assay_session` cookie. Only
// the token's keyed hash is stored, as for API keys, so a copy of the database opens no session.
// The Authenticator (access.ts) turns a request's cookie into its principal through `signedIn`.
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { z } from 'zod';
import type { Config } from '../../shared/config.js';
import type { RequestOrigin } from '../../shared/context.js';
import type { Db } from '../../shared/db.js';
import { TooManyRequestsError, UnauthorizedError } from '../../shared/errors.js';
import { type LimiterStore, windowLimiter, type WindowLimiter } from '../../shared/rate-limits.js';
import type { SecretBox } from '../../shared/secrets.js';
import type { BulkSql } from '../../shared/sql.js';
import { recordAudit } from '../audit/operations.js';
import { generateToken, KeyHasher } from '../keys/tokens.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { loginInput } from './inputs.js';
import { userActor } from './operations.js';

export const SESSION_COOKIE = 'assay_session';

/** `lastSeenAt` is written at most this often per session, as keys' `lastUsedAt` (docs/access.md#decisions). */
const LAST_SEEN_RESOLUTION_MS = 60_000;
/** Failures are counted over this window; once over the limit, logins wait out the block (docs/access.md#throttling). */
const FAILURE_WINDOW_SECONDS = 3600;
const EMAIL_BLOCK_SECONDS = 15 * 60;
const IP_BLOCK_SECONDS = 3600;

/** The value of the cookie `name` in a `Cookie` header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals > 0 && part.slice(0, equals).trim() === name) return part.slice(equals + 1).trim() || null;
  }
  return null;
}

/** Who a live session belongs to. */
export interface SignedIn {
  sessionId: string;
  userId: string;
  email: string;
  isAdmin: boolean;
}

interface StoredSession {
  id: string;
  userId: string;
  hash: string;
  expiresAt: string | number;
  lastSeenAt: string | number | null;
}

interface Throttle {
  limiter: WindowLimiter;
  max: number;
  blockSeconds: number;
}

export type SessionSettings = Pick<Config, 'ASSAY_SESSION_HOURS' | 'ASSAY_LOGIN_FAILURES_PER_EMAIL' | 'ASSAY_LOGIN_FAILURES_PER_IP'>;

export class Sessions {
  private readonly hasher: KeyHasher;
  private readonly byEmail: Throttle;
  private readonly byIp: Throttle;
  /** Sessions whose last sight is being written, so a burst of requests writes it once. */
  private readonly noting = new Set<string>();
  /** A hash of nothing, checked against for unknown emails so they take as long as a wrong password. */
  private dummyHash: Promise<string> | undefined;
  readonly lifetimeSeconds: number;

  constructor(
    private readonly db: Db,
    private readonly sql: BulkSql,
    secrets: SecretBox,
    settings: SessionSettings,
    private readonly onError: (error: unknown) => void,
    /** Where failures are counted: shared by every instance on PostgreSQL (docs/operations.md#several-instances). */
    store: LimiterStore = null,
  ) {
    this.hasher = new KeyHasher(secrets, 'session-hash');
    this.lifetimeSeconds = Math.round(settings.ASSAY_SESSION_HOURS * 3600);
    const throttle = (keyPrefix: string, max: number, blockSeconds: number): Throttle => ({
      limiter: windowLimiter(store, { keyPrefix, points: max, duration: FAILURE_WINDOW_SECONDS }),
      max,
      blockSeconds,
    });
    this.byEmail = throttle('login-email', settings.ASSAY_LOGIN_FAILURES_PER_EMAIL, EMAIL_BLOCK_SECONDS);
    this.byIp = throttle('login-ip', settings.ASSAY_LOGIN_FAILURES_PER_IP, IP_BLOCK_SECONDS);
  }

  /** The session token a `Cookie` header carries, or null. */
  static token(cookieHeader: string | undefined): string | null {
    return cookieValue(cookieHeader, SESSION_COOKIE);
  }

  /**
   * The live session of `token` and its user: reads by unique indexes, on every request that
   * carries the cookie; 401 when it is unknown, ended or expired.
   */
  async signedIn(token: string): Promise<SignedIn> {
    const hash = this.hasher.hash(token);
    const row = await this.sql.first<StoredSession>('SELECT "id", "userId", "hash", "expiresAt", "lastSeenAt" FROM "Session" WHERE "hash" = ?', [hash]);
    // Two reads by unique keys cost less than their join did (4.5 µs against 8.5, docs/access.md#sessions).
    const user =
      row && KeyHasher.same(row.hash, hash) && new Date(row.expiresAt).getTime() > Date.now()
        ? await this.sql.first<{ email: string; isAdmin: number | bigint | boolean }>('SELECT "email", "isAdmin" FROM "User" WHERE "id" = ?', [row.userId])
        : undefined;
    if (!row || !user) throw new UnauthorizedError('Your session has ended or expired: sign in again (POST /auth/login)', 'session');
    this.noteSeen(row.id, row.lastSeenAt === null ? null : new Date(row.lastSeenAt));
    return { sessionId: row.id, userId: row.userId, email: user.email, isAdmin: Number(user.isAdmin) === 1 };
  }

  /** Writes the session's last sight when the stored one is over a minute old; never delays the request. */
  private noteSeen(id: string, lastSeenAt: Date | null): void {
    const now = new Date();
    if ((lastSeenAt && now.getTime() - lastSeenAt.getTime() < LAST_SEEN_RESOLUTION_MS) || this.noting.has(id)) return;
    this.noting.add(id);
    this.db.session
      .updateMany({ where: { id }, data: { lastSeenAt: now } })
      .catch(this.onError)
      .finally(() => this.noting.delete(id));
  }

  /**
   * Checks the password and opens a session: its token (for the cookie) and user. A wrong email
   * and a wrong password answer the same 401 after the same work; too many failures for the email
   * or from the address answer 429 before any. Failures and successes are audited.
   */
  async login(input: z.output<typeof loginInput>, origin: RequestOrigin): Promise<{ token: string; userId: string }> {
    const emailKey = input.email;
    const ipKey = origin.ip ?? 'unknown';
    try {
      await Promise.all([this.refuseIfBlocked(this.byEmail, emailKey, 'this email'), this.refuseIfBlocked(this.byIp, ipKey, 'this address')]);
    } catch (error) {
      // Refused before the password is read: the audit log shows the attempts all the same.
      await recordAudit(this.db, {
        action: 'login.failed',
        projectId: null,
        actor: userActor({ id: null, email: input.email }),
        origin,
        details: { reason: 'throttled' },
      });
      throw error;
    }
    const user = await this.db.user.findUnique({ where: { email: input.email }, select: { id: true, passwordHash: true } });
    const matches = user?.passwordHash ? await verifyPassword(input.password, user.passwordHash) : await this.verifyNothing(input.password);
    const actor = userActor({ id: user?.id ?? null, email: input.email });
    if (!user || !matches) {
      await Promise.all([this.countFailure(this.byEmail, emailKey), this.countFailure(this.byIp, ipKey)]);
      const reason = !user ? 'unknown_email' : user.passwordHash ? 'wrong_password' : 'no_password';
      await recordAudit(this.db, { action: 'login.failed', projectId: null, actor, origin, details: { reason } });
      throw new UnauthorizedError('The email or the password is not right', 'session');
    }
    await this.byEmail.limiter.delete(emailKey);
    const token = generateToken();
    const now = new Date();
    await this.db.$transaction(async (tx) => {
      await tx.session.deleteMany({ where: { userId: user.id, expiresAt: { lte: now } } });
      await tx.session.create({
        data: {
          userId: user.id,
          hash: this.hasher.hash(token),
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.lifetimeSeconds * 1000),
          lastSeenAt: now,
          ip: origin.ip,
          userAgent: origin.userAgent,
        },
      });
      await recordAudit(tx, { action: 'login.succeeded', projectId: null, actor, origin });
    });
    return { token, userId: user.id };
  }

  /** Ends the session of `token` (its row is deleted: the cookie opens nothing from now on). */
  async logout(token: string | null, origin: RequestOrigin): Promise<void> {
    if (!token) return;
    const hash = this.hasher.hash(token);
    await this.db.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { hash }, select: { id: true, user: { select: { id: true, email: true } } } });
      if (!session) return;
      await tx.session.delete({ where: { id: session.id } });
      await recordAudit(tx, { action: 'logout', projectId: null, actor: userActor(session.user), origin });
    });
  }

  /** The `Set-Cookie` value of a new session: HttpOnly, SameSite=Lax, Secure over HTTPS (docs/access.md#sessions). */
  cookie(token: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${token}; Max-Age=${this.lifetimeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** The `Set-Cookie` value that removes the cookie. */
  static clearedCookie(secure: boolean): string {
    return `${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  private async verifyNothing(password: string): Promise<false> {
    this.dummyHash ??= hashPassword(generateToken());
    await verifyPassword(password, await this.dummyHash);
    return false;
  }

  private async refuseIfBlocked(throttle: Throttle, key: string, what: string): Promise<void> {
    const state = await throttle.limiter.get(key);
    if (state && state.consumedPoints >= throttle.max) {
      const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      throw new TooManyRequestsError(`Too many failed logins for ${what}: retry in ${seconds} s`, seconds);
    }
  }

  /** Counts a failure; the one that reaches the limit blocks the key for its block time. */
  private async countFailure(throttle: Throttle, key: string): Promise<void> {
    const state = await throttle.limiter.consume(key).catch((error: unknown) => {
      if (error instanceof RateLimiterRes) return error;
      throw error;
    });
    if (state.consumedPoints === throttle.max) await throttle.limiter.block(key, throttle.blockSeconds);
  }
}
