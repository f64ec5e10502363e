// Span times are kept in nanoseconds since the epoch (what OTLP sends) beside a millisecond Date
// the database can index. These helpers convert between ISO-8601 text, nanoseconds and Dates.

/** The range of a signed 64-bit integer column: 1677-09-21 to 2262-04-11 in nanoseconds. */
const MIN_NANOS = -(2n ** 63n);
const MAX_NANOS = 2n ** 63n - 1n;
const NANOS_PER_MS = 1_000_000n;

// Date, then optionally time with seconds, a fraction (up to nanoseconds; longer is cut) and an
// offset. A missing offset means UTC, as most tracing SDKs that write naive times intend.
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

export type IsoParse = { nanos: bigint } | { error: 'format' | 'range' };

/** Parses an ISO-8601 date or date-time into nanoseconds since the epoch, keeping the full fraction. */
export function parseIsoDateTime(text: string): IsoParse {
  const match = isoDateTime.exec(text.trim());
  if (!match) return { error: 'format' };
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', , sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const numbers = { year: +year, month: +month, day: +day, hour: +hour, minute: +minute, second: +second };
  if (numbers.month < 1 || numbers.month > 12 || numbers.hour > 23 || numbers.minute > 59 || numbers.second > 59) {
    return { error: 'format' };
  }
  if (+offsetHours > 23 || +offsetMinutes > 59) return { error: 'format' };
  // setUTCFullYear, unlike Date.UTC, takes years below 100 literally.
  const date = new Date(0);
  date.setUTCFullYear(numbers.year, numbers.month - 1, numbers.day);
  date.setUTCHours(numbers.hour, numbers.minute, numbers.second, 0);
  if (date.getUTCDate() !== numbers.day) return { error: 'format' }; // e.g. 2024-02-30 rolled over
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (+offsetHours * 60 + +offsetMinutes) * 60_000 : 0;
  const fractionNanos = BigInt(fraction.slice(0, 9).padEnd(9, '0'));
  const nanos = BigInt(date.getTime() - offsetMs) * NANOS_PER_MS + fractionNanos;
  if (nanos < MIN_NANOS || nanos > MAX_NANOS) return { error: 'range' };
  return { nanos };
}

/** Milliseconds since the epoch (rounded down) of a time in nanoseconds. */
export function nanosToMillis(nanos: bigint): number {
  let ms = nanos / NANOS_PER_MS;
  // BigInt division truncates toward zero; times before 1970 must still round down.
  if (nanos < 0n && nanos % NANOS_PER_MS !== 0n) ms -= 1n;
  return Number(ms);
}

/** The Date (millisecond precision, rounded down) of a time in nanoseconds. */
export function nanosToDate(nanos: bigint): Date {
  return new Date(nanosToMillis(nanos));
}

/** Seconds between two times in nanoseconds, as a float. */
export function secondsBetween(startNanos: bigint, endNanos: bigint): number {
  return Number(endNanos - startNanos) / 1e9;
}
