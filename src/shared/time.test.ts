// Time parsing and conversion (time.ts).
import { describe, expect, it } from 'vitest';
import { nanosToDate, parseIsoDateTime, secondsBetween } from './time.js';

describe('parseIsoDateTime', () => {
  const nanos = (text: string) => {
    const parsed = parseIsoDateTime(text);
    return 'nanos' in parsed ? parsed.nanos : parsed.error;
  };
  const base = BigInt(Date.parse('2024-05-01T12:00:00Z')) * 1_000_000n;

  it('reads UTC, offsets, naive times (UTC) and dates alone', () => {
    expect(nanos('2024-05-01T12:00:00Z')).toBe(base);
    expect(nanos('2024-05-01T12:00:00')).toBe(base);
    expect(nanos('2024-05-01 12:00:00z')).toBe(base);
    expect(nanos('2024-05-01T14:30:00+02:30')).toBe(base);
    expect(nanos('2024-05-01T07:00:00-0500')).toBe(base);
    expect(nanos('2024-05-01T12:00Z')).toBe(base);
    expect(nanos('2024-05-01')).toBe(base - 12n * 3600n * 1_000_000_000n);
  });

  it('keeps the fraction to the nanosecond and cuts what lies beyond', () => {
    expect(nanos('2024-05-01T12:00:00.5Z')).toBe(base + 500_000_000n);
    expect(nanos('2024-05-01T12:00:00.123456789Z')).toBe(base + 123_456_789n);
    expect(nanos('2024-05-01T12:00:00.1234567891234Z')).toBe(base + 123_456_789n);
  });

  it('refuses what is not an ISO-8601 date-time', () => {
    const invalid = [
      'yesterday',
      '2024-5-1',
      '2024-13-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T12:60:00Z',
      '2024-05-01T12:00:00+25:00',
      '1714564800',
      '',
    ];
    for (const text of invalid) {
      expect(nanos(text), text).toBe('format');
    }
    expect(nanos('2024-02-29T00:00:00Z')).toBeTypeOf('bigint');
  });

  it('refuses times a signed 64-bit nanosecond count cannot hold', () => {
    expect(nanos('2262-04-12T00:00:00Z')).toBe('range');
    expect(nanos('1677-09-21T00:00:00Z')).toBe('range');
    expect(nanos('0099-01-01T00:00:00Z')).toBe('range');
    expect(nanos('1969-12-31T23:59:59.5Z')).toBe(-500_000_000n);
  });

  it('converts nanoseconds to Dates rounding down, and measures seconds', () => {
    expect(nanosToDate(base + 999_999n).toISOString()).toBe('2024-05-01T12:00:00.000Z');
    expect(nanosToDate(-1n).toISOString()).toBe('1969-12-31T23:59:59.999Z');
    expect(secondsBetween(base, base + 1_500_000_000n)).toBe(1.5);
  });
});
