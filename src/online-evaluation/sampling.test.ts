// The sampling decision and the job backoff are pure functions: the same target gets the same
// decision wherever and whenever it is asked (another instance, a restart), and the share sampled
// follows the rate.
import { describe, expect, it } from 'vitest';
import { readPath } from './mapping.js';
import { backoffMs } from './runner.js';
import { isSampled, sampleFraction } from './sampling.js';

describe('isSampled', () => {
  const keys = Array.from({ length: 2000 }, (_, index) => `${index.toString(16).padStart(32, '0')}`);

  it('samples between 27% and 33% of 2,000 traces at rate 0.3', () => {
    const share = keys.filter((key) => isSampled(key, 0.3)).length / keys.length;
    expect(share).toBeGreaterThanOrEqual(0.27);
    expect(share).toBeLessThanOrEqual(0.33);
  });

  it('decides from the key alone: the same answer every time, fixed values across releases', () => {
    const first = keys.map((key) => isSampled(key, 0.3));
    expect(keys.map((key) => isSampled(key, 0.3))).toEqual(first);
    // Pinned: a change of the hash would change which stored targets a backfill or another version picks.
    expect(sampleFraction('4bf92f3577b34da6a3ce929d0e0e4736')).toMatchInlineSnapshot(`0.22477405853512122`);
  });

  it('takes everything at rate 1 and nests: a target sampled at 0.1 is sampled at 0.5', () => {
    expect(keys.every((key) => isSampled(key, 1))).toBe(true);
    for (const key of keys) if (isSampled(key, 0.1)) expect(isSampled(key, 0.5)).toBe(true);
  });
});

describe('backoffMs', () => {
  it('doubles from the base with jitter in the upper half, caps at 5 minutes, and lets Retry-After win', () => {
    for (let retries = 0; retries < 5; retries++) {
      const wait = backoffMs({ backoffMs: 1000 }, retries);
      expect(wait).toBeGreaterThanOrEqual(500 * 2 ** retries);
      expect(wait).toBeLessThanOrEqual(1000 * 2 ** retries);
    }
    expect(backoffMs({ backoffMs: 1000 }, 40)).toBeLessThanOrEqual(300_000);
    expect(backoffMs({ backoffMs: 10 }, 0, 5000)).toBe(5000);
  });
});

describe('readPath', () => {
  const document = { input: { question: 'why?', list: [1, { deep: 'x' }] }, attributes: { 'gen_ai.system': 'openai' } };
  it('reads keys, quoted keys and indexes, and answers undefined where the path leads nowhere', () => {
    expect(readPath(document, '$')).toBe(document);
    expect(readPath(document, '$.input.question')).toBe('why?');
    expect(readPath(document, '$.input.list[1].deep')).toBe('x');
    expect(readPath(document, "$.attributes['gen_ai.system']")).toBe('openai');
    expect(readPath(document, '$.input.missing.more')).toBeUndefined();
    expect(readPath(document, '$.input[0]')).toBeUndefined();
  });
});
