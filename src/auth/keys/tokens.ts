// API keys as text (docs/access.md#keys): how one is made, read from a request and hashed. A key
// is `assay_` and 43 characters of base64url (32 random bytes); it is stored only as its
// HMAC-SHA-256 under a key derived from the server secret, so a lookup is one indexed read and a
// copy of the database gives no key away.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SecretBox } from '../../shared/secrets.js';

const KEY_PREFIX = 'assay_';
/** Characters shown after `assay_` (or from the start of a key of another form) to recognise a key. */
const SHOWN = 4;

export function generateKey(): string {
  return KEY_PREFIX + generateToken();
}

/** 32 random bytes as base64url: a session's or a password link's token (docs/access.md#sessions). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What a list shows of a key: `assay_` and 4 more characters, never enough to guess the rest. */
export function keyPrefix(key: string): string {
  return key.slice(0, (key.startsWith(KEY_PREFIX) ? KEY_PREFIX.length : 0) + SHOWN);
}

/**
 * The key an `Authorization` header carries: `Bearer <key>`, `ApiKey <key>`, or
 * `Basic base64(<anything>:<key>)` (Langfuse's form, and what a browser's prompt sends); null
 * without one.
 */
export function keyFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const space = header.indexOf(' ');
  if (space < 0) return null;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer' || scheme === 'apikey') return value || null;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
  }
  return null;
}

export class KeyHasher {
  // A KeyObject, not the bytes: HMAC with a Buffer key imports it on every call (6 times slower).
  private readonly secret: KeyObject;

  /**
   * `purpose` keeps each kind of secret under its own key: an API key's hash never matches a
   * session's (`session-hash`) or a password link's (`password-link-hash`).
   */
  constructor(secrets: SecretBox, purpose = 'api-key-hash') {
    this.secret = createSecretKey(secrets.derive(purpose));
  }

  /** The keyed hash stored for `key` (hex). */
  hash(key: string): string {
    return createHmac('sha256', this.secret).update(key, 'utf8').digest('hex');
  }

  /** Whether a stored hash is `hash`, compared in constant time. */
  static same(stored: string, hash: string): boolean {
    const a = Buffer.from(stored, 'hex');
    const b = Buffer.from(hash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
