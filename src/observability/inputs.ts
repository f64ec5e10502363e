// The inputs of the observability domain, named as the REST bodies and queries are
// (docs/observability.md).
import { z } from 'zod';
import { int, isoDate, jsonObject, number } from '../shared/validation.js';
import { pageLimit } from '../shared/http/params.js';
import { EVALUATION_ENVIRONMENT, spanKinds, spanStatuses } from './ingest.js';
import { spanReadTypes } from './read.js';
import { parseIsoDateTime } from '../shared/time.js';

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

export const spanReadQuery = z.object({
  type: z.enum(spanReadTypes).default('generation'),
  /** Narrows the look-up when a span id exists in several traces. */
  trace_id: z.string().min(1).optional(),
});

export type LegacySpanInput = z.output<typeof legacySpanInput>;
export type LegacyTraceInput = z.output<typeof legacyTraceInput>;

// ---------------------------------------------------------------------------------------------
// Trace and span search (GET /observability/traces, /observability/spans, /observability/metrics)

/** A number in a query string. */
const queryNumber = () =>
  z
    .string()
    .refine((value) => value.trim() !== '' && Number.isFinite(Number(value)), {
      message: 'Input should be a valid number, unable to parse string as a number',
      params: { type: 'float_parsing' },
    })
    .transform(Number)
    .pipe(z.number().min(0))
    .meta({ description: 'A number, 0 or more' });

/** A comma-separated list of upper-case enum values (any case accepted). */
function queryEnumList<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim().toUpperCase())
        .filter((item) => item !== ''),
    )
    .pipe(z.array(z.enum(values)))
    .meta({ description: `Comma-separated, any letter case: ${values.join(', ')}` });
}

/** A boolean in a query string, in pydantic's spellings (any case). */
const queryBoolean = () =>
  z
    .string()
    .transform((value, ctx) => {
      const word = value.trim().toLowerCase();
      if (['true', '1', 'yes', 'on', 't', 'y'].includes(word)) return true;
      if (['false', '0', 'no', 'off', 'f', 'n'].includes(word)) return false;
      ctx.addIssue({ code: 'custom', message: 'Input should be a valid boolean, unable to interpret input', params: { type: 'bool_parsing' } });
      return z.NEVER;
    })
    .meta({ description: 'true or false (also 1/0, yes/no, on/off)' });

export const searchQuery = z.object({
  started_after: isoDate().optional(),
  started_before: isoDate().optional(),
  name_contains: z.string().min(1).optional(),
  spankind: queryEnumList(spanKinds).optional(),
  status: queryEnumList(spanStatuses).optional(),
  user_id: z.string().optional(),
  session_id: z.string().optional(),
  environment: z.string().optional(),
  app_id: z.string().optional(),
  variant_id: z.string().optional(),
  variant_name: z.string().optional(),
  model: z.string().min(1).optional(),
  text: z.string().min(1).optional(),
  min_cost: queryNumber().optional(),
  max_cost: queryNumber().optional(),
  min_latency: queryNumber().optional(),
  max_latency: queryNumber().optional(),
  trace_id: z.string().min(1).optional(),
  include_evaluations: queryBoolean()
    .optional()
    .describe(
      `Also the traces of Assay's own evaluation calls (environment "${EVALUATION_ENVIRONMENT}"), left out unless this is true or \`environment\` names theirs`,
    ),
  sort_by: z.string().optional(),
  sort_direction: z.enum(['asc', 'desc']).default('desc'),
  limit: pageLimit(),
  cursor: z.string().min(1).optional(),
});

export type SearchQuery = z.output<typeof searchQuery>;
