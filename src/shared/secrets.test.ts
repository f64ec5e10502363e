// Sealed secrets: read back only under the key that sealed them and only unaltered; the key from
// ASSAY_SECRET_KEY, or made once and kept beside the database.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { SecretBox, SecretUnreadable, keyFile } from './secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  const keys = { OPENAI_API_KEY: 'sk-ünïcode-🔑', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };

  it('reads back what it sealed, and seals the same value differently each time', () => {
    const sealed = box.seal(keys);
    expect(sealed).toMatch(/^sealed:v1:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain('sk-');
    expect(box.open(sealed)).toEqual(keys);
    expect(box.seal(keys)).not.toBe(sealed);
  });

  it('refuses text sealed under another key, altered, or not sealed at all', () => {
    const sealed = box.seal(keys);
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow(SecretUnreadable);
    const bytes = Buffer.from(sealed.slice('sealed:v1:'.length), 'base64');
    bytes[bytes.length - 1] ^= 1;
    expect(() => box.open(`sealed:v1:${bytes.toString('base64')}`)).toThrow(SecretUnreadable);
    expect(() => box.open('sealed:v1:')).toThrow(SecretUnreadable);
    expect(() => box.open(JSON.stringify(keys))).toThrow(SecretUnreadable);
  });
});

/** A database path in a directory of its own (the key file goes beside it). */
function databaseIn(name: string): string {
  const own = join(dir, name);
  mkdirSync(own);
  return join(own, 'assay.db');
}

describe('the secret key', () => {
  it('is made at the first start, kept beside the database for the owner alone, and read at the next', () => {
    const database = databaseIn('kept');
    const sealed = SecretBox.load(undefined, database).seal({ kept: true });
    const file = keyFile(database);
    expect(file).toBe(join(dir, 'kept', 'assay-secret.key'));
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(SecretBox.load(undefined, database).open(sealed)).toEqual({ kept: true });
  });

  it('comes from ASSAY_SECRET_KEY when set, and no file is made', () => {
    const hex = randomBytes(32).toString('hex');
    const database = databaseIn('env');
    const sealed = SecretBox.load(hex, database).seal('x');
    expect(new SecretBox(Buffer.from(hex, 'hex')).open(sealed)).toBe('x');
    expect(existsSync(keyFile(database))).toBe(false);
  });

  it('refuses a key file that does not hold a key', () => {
    const database = databaseIn('bad');
    writeFileSync(keyFile(database), 'not a key\n');
    expect(() => SecretBox.load(undefined, database)).toThrow(/does not hold a 64-hex-digit key/);
  });

  it('is checked when set: 64 hex digits', () => {
    expect(() => loadConfig({ ASSAY_SECRET_KEY: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ ASSAY_SECRET_KEY: 'abc' })).toThrow(/ASSAY_SECRET_KEY: must be 64 hex digits/);
    expect(loadConfig({ ASSAY_SECRET_KEY: 'AB'.repeat(32) }).ASSAY_SECRET_KEY).toBe('AB'.repeat(32));
  });
});
