// Users' passwords (docs/access.md#passwords): scrypt, Node's own, run on libuv's thread pool so a
// login never blocks the event loop. The stored text carries its parameters and salt, so stronger
// parameters later still verify the passwords hashed before.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** N = 2^15, r = 8, p = 1: 32 MiB of memory per hash (docs/access.md#passwords has the time measured). */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 64;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is exactly that, which it refuses.
  const settings: ScryptOptions = { ...options, maxmem: 256 * options.N * options.r };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_BYTES, settings, (error, key) => (error ? reject(error) : resolve(key))));
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url), what `User.passwordHash` stores. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
