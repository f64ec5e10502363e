// The sampling decision of a rule (docs/online-evaluation.md#sampling): a pure function of the
// target's key, so every instance, every restart and every backfill decides the same.
import { createHash } from 'node:crypto';

/** A number in [0, 1) read from the first 52 bits of the key's SHA-256. */
export function sampleFraction(targetKey: string): number {
  const digest = createHash('sha256').update(targetKey).digest();
  // 52 bits fit a double exactly: 4 bytes, then 20 bits of the next 3.
  const high = digest.readUInt32BE(0);
  const low = digest.readUIntBE(4, 3) >>> 4;
  return (high * 2 ** 20 + low) / 2 ** 52;
}

/** Whether a rule sampling at `rate` (0 < rate ≤ 1) evaluates the target of this key. */
export function isSampled(targetKey: string, rate: number): boolean {
  return rate >= 1 || sampleFraction(targetKey) < rate;
}
