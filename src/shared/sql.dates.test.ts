// sqlDateOfMillis (sql.ts): the same text as sqlDate of the same time, however it was reached.
import { describe, expect, it } from 'vitest';
import { sqlDate, sqlDateOfMillis } from './sql.js';

describe('sqlDateOfMillis', () => {
  it('writes what sqlDate writes, in the remembered minute, across minutes and outside four-digit years', () => {
    const base = Date.parse('2024-05-01T12:34:00Z');
    const times = [0, 1, 59_999, 60_000, base, base + 1, base + 9, base + 10, base + 99, base + 100, base + 59_999, base + 60_000, base - 1];
    times.push(253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_000, 8.64e15);
    for (let i = 0; i < 1000; i++) times.push(Math.floor(Math.random() * 4e12));
    for (const ms of times) expect(sqlDateOfMillis(ms)).toBe(sqlDate(new Date(ms)));
    // Twice in the same minute, the second from the remembered text.
    expect(sqlDateOfMillis(base + 5_007)).toBe('2024-05-01T12:34:05.007+00:00');
    expect(sqlDateOfMillis(base + 5_070)).toBe('2024-05-01T12:34:05.070+00:00');
  });
});
