// The input of the legacy JSON ingest, `POST /observability/trace {trace, spans}` and GraphQL
// `ingestTrace` (docs/observability.md#legacy-ingest-post-observabilitytrace), in its REST names.
import { z } from 'zod';
import { int, jsonObject, number } from '../../shared/validation.js';
import { parseIsoDateTime } from '../../shared/time.js';
import { spanKinds, spanStatuses } from './span-record.js';

/** A required, non-empty name (not trimmed: it is what the client sent). */
const text = () => z.string().min(1);

/** A trace or span id, of at most 100 characters (docs/limits.md). */
export const MAX_ID_LENGTH = 100;
const id = () => text().max(MAX_ID_LENGTH);

/** One of `values`, in any letter case, given upper-case; absent or null gives `fallback`. */
function upperCaseEnum<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z
    .preprocess((value) => (value === undefined || value === null ? fallback : typeof value === 'string' ? value.toUpperCase() : value), z.enum(values))
    .meta({ description: `Any letter case; absent or null means ${fallback}` });
}

/**
 * An ISO-8601 date-time (a date alone is midnight; no offset means UTC), parsed to nanoseconds
 * since the epoch with the full fraction kept. Faults use pydantic's datetime words.
 */
const isoDateTime = () =>
  z
    .unknown()
    .transform((value, ctx) => {
      const fail = (message: string, type: string) => {
        ctx.addIssue({ code: 'custom', message, params: { type } });
        return z.NEVER;
      };
      if (value === undefined) return fail('Field required', 'missing');
      if (typeof value !== 'string') return fail('Input should be a valid datetime', 'datetime_type');
      const parsed = parseIsoDateTime(value);
      if ('error' in parsed) {
        return parsed.error === 'range'
          ? fail('Date-time should be between 1677-09-22 and 2262-04-11', 'value_error')
          : fail('Input should be a valid datetime or date, expected ISO 8601 such as 2024-05-01T12:00:00Z', 'datetime_from_date_parsing');
      }
      return parsed.nanos;
    })
    .meta({ description: 'ISO-8601 date-time (a date alone is midnight; no offset means UTC)', override: { type: 'string' } });

const count = () => int({ min: 0 });

/** Token usage; `total_tokens` defaults to the sum of the other two when either is given. */
const tokens = z
  .object({ prompt_tokens: count().nullish(), completion_tokens: count().nullish(), total_tokens: count().nullish() })
  .transform(({ prompt_tokens, completion_tokens, total_tokens }) => ({
    prompt_tokens: prompt_tokens ?? null,
    completion_tokens: completion_tokens ?? null,
    total_tokens: total_tokens ?? (prompt_tokens == null && completion_tokens == null ? null : (prompt_tokens ?? 0) + (completion_tokens ?? 0)),
  }));

const optionalText = () => z.string().nullish();

export const legacySpanInput = z
  .object({
    id: id(),
    name: text(),
    parent_span_id: id().nullish(),
    spankind: upperCaseEnum(spanKinds, 'UNKNOWN'),
    status: upperCaseEnum(spanStatuses, 'UNSET'),
    start_time: isoDateTime(),
    end_time: isoDateTime(),
    inputs: jsonObject().nullish(),
    outputs: jsonObject().nullish(),
    internals: jsonObject().nullish(),
    config: jsonObject().nullish(),
    environment: optionalText(),
    variant_id: optionalText(),
    variant_name: optionalText(),
    revision: int().nullish(),
    user: optionalText(),
    session_id: optionalText(),
    app_id: optionalText(),
    tokens: tokens.nullish(),
    cost: number({ min: 0 }).nullish(),
    attributes: jsonObject().nullish(),
  })
  // `when`: these checks run even if other fields failed, so every fault is listed at once; but
  // only on an object (a null span has no fields to compare).
  .superRefine(
    (span, ctx) => {
      if (typeof span.start_time === 'bigint' && typeof span.end_time === 'bigint' && span.end_time < span.start_time) {
        ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'Value error, end_time must not be before start_time' });
      }
      if (typeof span.parent_span_id === 'string' && span.parent_span_id === span.id) {
        ctx.addIssue({ code: 'custom', path: ['parent_span_id'], message: 'Value error, a span cannot be its own parent' });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

export const legacyTraceInput = z.object({
  trace: id(),
  spans: z.array(legacySpanInput).min(1),
});

export type LegacySpanInput = z.output<typeof legacySpanInput>;
export type LegacyTraceInput = z.output<typeof legacyTraceInput>;
