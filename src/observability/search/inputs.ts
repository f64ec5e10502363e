// The inputs of trace and span search (GET /observability/traces, /observability/spans,
// /observability/metrics; GraphQL `traces`, `spans` and their metrics), and how REST query strings
// and GraphQL arguments become one SearchFilter.
import { z } from 'zod';
import { ValidationError } from '../../shared/errors.js';
import { isoDate } from '../../shared/validation.js';
import { pageLimit, queryBoolean } from '../../shared/http/params.js';
import { EVALUATION_ENVIRONMENT, spanKinds, spanStatuses, type SpanKind, type SpanStatus } from '../ingestion/span-record.js';
import type { SearchFilter } from './filters.js';
import type { SortDirection } from './listings.js';

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

/** The filter fields alone, no sort or page (an annotation queue's items picked by a filter). */
export const searchFilterQuery = searchQuery.omit({ sort_by: true, sort_direction: true, limit: true, cursor: true }).strict();

/** `GET /observability/metrics`: of traces (the default) or of spans. */
export const metricsQuery = z.object({ of: z.enum(['traces', 'spans']).default('traces') });

/** The filter fields, named as REST and GraphQL name them. */
export interface SearchArgs {
  started_after?: Date | null;
  started_before?: Date | null;
  name_contains?: string | null;
  spankind?: readonly SpanKind[] | null;
  status?: readonly SpanStatus[] | null;
  user_id?: string | null;
  session_id?: string | null;
  environment?: string | null;
  app_id?: string | null;
  variant_id?: string | null;
  variant_name?: string | null;
  model?: string | null;
  text?: string | null;
  min_cost?: number | null;
  max_cost?: number | null;
  min_latency?: number | null;
  max_latency?: number | null;
  trace_id?: string | null;
  include_evaluations?: boolean | null;
}

const defined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

export function searchFilter(args: SearchArgs, where: 'query' | 'body' = 'query'): SearchFilter {
  const issues = [];
  for (const [low, high] of [
    ['min_cost', 'max_cost'],
    ['min_latency', 'max_latency'],
  ] as const) {
    const a = args[low];
    const b = args[high];
    if (a != null && a < 0) issues.push({ loc: [where, low], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' });
    if (b != null && b < 0) issues.push({ loc: [where, high], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    startedAfter: defined(args.started_after),
    startedBefore: defined(args.started_before),
    nameContains: defined(args.name_contains) || undefined,
    spanKinds: args.spankind?.length ? [...args.spankind] : undefined,
    statuses: args.status?.length ? [...args.status] : undefined,
    userId: defined(args.user_id),
    sessionId: defined(args.session_id),
    environment: defined(args.environment),
    appId: defined(args.app_id),
    variantId: defined(args.variant_id),
    variantName: defined(args.variant_name),
    model: defined(args.model) || undefined,
    text: defined(args.text) || undefined,
    minCost: defined(args.min_cost),
    maxCost: defined(args.max_cost),
    minLatency: defined(args.min_latency),
    maxLatency: defined(args.max_latency),
    traceId: defined(args.trace_id),
    includeEvaluations: args.include_evaluations ?? false,
  };
}

/** `sort_by` of a REST query, one of `fields` (422 `enum` otherwise). */
export function sortOf<const F extends readonly string[]>(query: SearchQuery, fields: F): { field: F[number]; direction: SortDirection } {
  const field = query.sort_by ?? 'start_time';
  if (!fields.includes(field)) {
    throw ValidationError.at(['query', 'sort_by'], `Input should be ${fields.map((f) => `'${f}'`).join(', ')}`, 'enum');
  }
  return { field, direction: query.sort_direction };
}
