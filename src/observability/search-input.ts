// From the search inputs of REST (query strings) and GraphQL (arguments) to a SearchFilter.
import { ValidationError } from '../shared/errors.js';
import type { SpanKind, SpanStatus } from './ingest.js';
import type { SearchQuery } from './inputs.js';
import type { SearchFilter, SortDirection } from './search.js';

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
