import { describe, expect, it } from 'vitest';
import { effectiveText, optionalNumber } from './prices.ts';

describe('prices', () => {
  it('says when a price starts', () => {
    expect(effectiveText('1970-01-01T00:00:00.000Z')).toBe('always');
    expect(effectiveText('2024-05-13T00:00:00.000Z')).toMatch(/2024/);
    expect(effectiveText('2024-05-13T00:00:00.000Z')).not.toMatch(/:/);
    expect(effectiveText('2024-05-13T09:30:00.000Z')).toMatch(/9:30/);
  });

  it('leaves an empty number to the API', () => {
    expect(optionalNumber('')).toBeUndefined();
    expect(optionalNumber('  ')).toBeUndefined();
    expect(optionalNumber('0.5')).toBe(0.5);
    expect(optionalNumber('0')).toBe(0);
  });
});
