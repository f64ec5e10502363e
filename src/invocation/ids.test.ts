// Ids of the traces Assay records for its own calls.
import { describe, expect, it } from 'vitest';
import { newTraceId } from './ids.js';

describe('newTraceId', () => {
  it('leads with the time in milliseconds and ends with 10 random bytes', () => {
    const before = Date.now();
    const id = newTraceId();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const ms = parseInt(id.slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
    const ids = Array.from({ length: 10_000 }, () => newTraceId());
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((made) => made.slice(12))).size).toBe(ids.length);
  });

  it('sorts later ids after earlier ones', async () => {
    const earlier = newTraceId();
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(newTraceId() > earlier).toBe(true);
  });
});
