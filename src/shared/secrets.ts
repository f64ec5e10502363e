// Secrets the service must keep for a while but never in the clear: the provider keys a request
// gives an evaluation (lm_providers_keys) stay in its row until the run ends, so that a restart
// can resume it. They are stored sealed with AES-256-GCM under the server's secret key: set
// ASSAY_SECRET_KEY (64 hex digits), or the key is made once and kept in `assay-secret.key` beside
// the database (mode 0600), so a copy of the database file alone does not give the keys away.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Marks sealed text, and which scheme sealed it. */
const PREFIX = 'sealed:v1:';

export class SecretUnreadable extends Error {}

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  }

  /**
   * The key from `ASSAY_SECRET_KEY` (hex) when set; else the one kept beside the database,
   * made at the first start.
   */
  static load(secretKeyHex: string | undefined, databasePath: string | null): SecretBox {
    if (secretKeyHex) return new SecretBox(Buffer.from(secretKeyHex, 'hex'));
    // Config refuses PostgreSQL without ASSAY_SECRET_KEY: instances share the database, not a disk.
    if (databasePath === null) throw new Error('ASSAY_SECRET_KEY is required when the database is not a file');
    const file = keyFile(databasePath);
    let hex: string;
    try {
      hex = readFileSync(file, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      hex = randomBytes(32).toString('hex');
      // `wx`: of two processes starting at once, the second reads the first one's key.
      try {
        writeFileSync(file, `${hex}\n`, { mode: 0o600, flag: 'wx' });
      } catch (raced) {
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
        hex = readFileSync(file, 'utf8').trim();
      }
    }
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 64-hex-digit key`);
    return new SecretBox(Buffer.from(hex, 'hex'));
  }

  /**
   * A key for another use (`purpose` names it), derived from the secret key with HKDF-SHA-256:
   * API keys are hashed under one (docs/access.md), and no use can learn another's key.
   */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `assay:${purpose}`, 32));
  }

  /** `value` as JSON, encrypted and authenticated: `sealed:v1:<base64 of iv, tag, ciphertext>`. */
  seal(value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  /** What `seal` was given; throws SecretUnreadable for text not sealed under this key. */
  open(text: string): unknown {
    if (!text.startsWith(PREFIX)) throw new SecretUnreadable('not a sealed secret');
    const bytes = Buffer.from(text.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8'));
    } catch {
      throw new SecretUnreadable('sealed under another key, or altered');
    }
  }
}

/** Where the key is kept when ASSAY_SECRET_KEY is not set. */
export function keyFile(databasePath: string): string {
  return join(dirname(databasePath), 'assay-secret.key');
}
