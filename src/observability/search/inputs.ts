// The inputs of trace and span search (GET /observability/traces, /observability/spans,
// /observability/metrics; GraphQL `traces`, `spans` and their metrics), and how REST query strings
// and GraphQL arguments become one SearchFilter.
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../shared/errors.js';
import { isoDate, validationIssues } from '../../shared/validation.js';
import { pageLimit, queryBoolean } from '../../shared/http/params.js';
import type { ScoreCondition } from '../../scores/trace-search.js';
import { EVALUATION_ENVIRONMENT, spanKinds, spanStatuses, type SpanKind, type SpanStatus } from '../ingestion/span-record.js';
import type { AttributeCondition, SearchFilter } from './filters.js';
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

/** How many score filters one search takes. */
export const MAX_SCORE_FILTERS = 10;

/** One score filter, as REST's `scores` (JSON) and GraphQL's `ScoreFilter` (camelCase) give it. */
export interface ScoreFilterArgs {
  name: string;
  min?: number | null;
  max?: number | null;
  value?: boolean | null;
  any_of?: readonly string[] | null;
  present?: boolean | null;
}

const scoreFilterItem = z.strictObject({
  name: z.string().min(1),
  min: z.number().optional(),
  max: z.number().optional(),
  value: z.boolean().optional(),
  any_of: z.array(z.string()).optional(),
  present: z.boolean().optional(),
});

/** A JSON array of `what` in a query string, each item read by `items`. */
const queryJsonList = <T extends z.ZodType>(what: string, items: T) =>
  z
    .string()
    .transform((text, ctx): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `Input should be a JSON array of ${what}`, params: { type: 'json_invalid' } });
        return z.NEVER;
      }
    })
    .pipe(items);

/** `scores`: a JSON array of score filters in a query string. */
const queryScores = () =>
  queryJsonList('score filters', z.array(scoreFilterItem).max(MAX_SCORE_FILTERS)).meta({
    description:
      'A JSON array of score filters, all of which a trace meets: `{"name": …}` with one of `"min"`/`"max"` (a value in the range), `"value"` (a boolean score\'s true or false), `"any_of"` (a categorical score\'s labels) or `"present"` (true: has a score of the name; false: has none). E.g. `[{"name":"helpfulness","min":0.5}]`',
  });

/** How many span attribute filters one search takes. */
export const MAX_ATTRIBUTE_FILTERS = 10;

/** How an attribute filter compares (docs/observability.md#span-attributes). */
export const attributeOperators = ['equals', 'contains', 'exists'] as const;
export type AttributeOperator = (typeof attributeOperators)[number];

/** One span attribute filter, as REST's `attributes` (JSON), a rule's filter and GraphQL's `AttributeFilter` give it. */
export interface AttributeFilterArgs {
  key: string;
  operator: AttributeOperator;
  value?: string | number | boolean | null;
}

/** An attribute filter: its key, its operator, and the value `equals` and `contains` need (`exists` takes none). */
export const attributeFilterItem = z
  .strictObject({
    key: z.string().min(1).max(256),
    operator: z.enum(attributeOperators),
    value: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  })
  .superRefine((item, ctx) => {
    const fault = (message: string, type = 'value_error') => ctx.addIssue({ code: 'custom', path: ['value'], message, params: { type } });
    if (item.operator === 'equals' && item.value == null) fault('Field required: equals compares with a string, number or boolean', 'missing');
    if (item.operator === 'contains' && (typeof item.value !== 'string' || item.value === '')) fault('contains takes a non-empty string');
    if (item.operator === 'exists' && item.value != null) fault('exists takes no value');
  });

/** The attribute filters: at most MAX_ATTRIBUTE_FILTERS, every one of which a span (a trace: one of its spans) meets. */
export const attributeFilters = z.array(attributeFilterItem).max(MAX_ATTRIBUTE_FILTERS);

/** `attributes`: a JSON array of attribute filters in a query string. */
const queryAttributes = () =>
  queryJsonList('attribute filters', attributeFilters).meta({
    description:
      'A JSON array of span attribute filters, all of which a span meets (traces: some span of the trace meets each): `{"key": …, "operator": …}` where `key` is an attribute\'s key as sent (OTLP\'s dotted keys whole, e.g. `gen_ai.system`), and `operator` is `"equals"` (with `"value"`, a string, number or boolean: the attribute is that JSON value), `"contains"` (with `"value"`, text in the attribute\'s text, ignoring ASCII case) or `"exists"` (the span has the key). E.g. `[{"key":"gen_ai.system","operator":"equals","value":"openai"}]`',
  });

/** A comma-separated list of names in a query string. */
const queryNames = () =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    .pipe(z.array(z.string()).max(MAX_SCORE_FILTERS * 2));

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
  scores: queryScores().optional(),
  attributes: queryAttributes().optional(),
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

/** `GET /observability/traces`: the score names whose values each trace carries (its `scores`). */
export const traceListQuery = z.object({
  score_names: queryNames()
    .optional()
    .describe('Comma-separated score names: each trace answers `scores` with one entry per name it has scores of (its columns in a list)'),
});

/** `GET /observability/metrics`: the score names to sum up. */
export const metricsScoresQuery = z.object({
  score_names: queryNames().optional().describe('Comma-separated score names: the answer has `scores`, a summary of each over the matching traces'),
});

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
  scores?: readonly ScoreFilterArgs[] | null;
  attributes?: readonly AttributeFilterArgs[] | null;
  include_evaluations?: boolean | null;
}

const defined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

export function searchFilter(args: SearchArgs, where: 'query' | 'body' = 'query'): SearchFilter {
  const issues: ValidationIssue[] = [];
  for (const [low, high] of [
    ['min_cost', 'max_cost'],
    ['min_latency', 'max_latency'],
  ] as const) {
    const a = args[low];
    const b = args[high];
    if (a != null && a < 0) issues.push({ loc: [where, low], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' });
    if (b != null && b < 0) issues.push({ loc: [where, high], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' });
  }
  const scores = scoreConditions(args.scores ?? [], where, issues);
  const attributes = attributeConditions(args.attributes ?? [], where, issues);
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
    scores: scores.length > 0 ? scores : undefined,
    attributes: attributes.length > 0 ? attributes : undefined,
    includeEvaluations: args.include_evaluations ?? false,
  };
}

/**
 * The score filters as conditions: each gives exactly one of a range (`min`, `max` or both), a
 * boolean `value`, labels (`any_of`) or `present`; faults go into `issues`, naming the field.
 */
function scoreConditions(items: readonly ScoreFilterArgs[], where: string, issues: ValidationIssue[]): ScoreCondition[] {
  if (items.length > MAX_SCORE_FILTERS) {
    issues.push({ loc: [where, 'scores'], msg: `List should have at most ${MAX_SCORE_FILTERS} items`, type: 'too_long' });
    return [];
  }
  return items.flatMap((item, index): ScoreCondition[] => {
    const at = (field?: string) => (field ? [where, 'scores', index, field] : [where, 'scores', index]);
    const kinds = [item.min != null || item.max != null, item.value != null, item.any_of != null, item.present != null].filter(Boolean).length;
    const before = issues.length;
    if (item.name.trim() === '') issues.push({ loc: at('name'), msg: 'String should have at least 1 character', type: 'string_too_short' });
    if (kinds !== 1) issues.push({ loc: at(), msg: 'Give exactly one of min/max, value, any_of or present', type: 'value_error' });
    if (item.min != null && item.max != null && item.min > item.max) issues.push({ loc: at('max'), msg: 'Input should be at least min', type: 'value_error' });
    if (item.any_of != null && (item.any_of.length === 0 || item.any_of.some((label) => label === ''))) {
      issues.push({ loc: at('any_of'), msg: 'Input should be a non-empty list of labels', type: 'value_error' });
    }
    if (issues.length > before) return [];
    const { name } = item;
    if (item.value != null) return [{ name, kind: 'boolean', value: item.value }];
    if (item.any_of != null) return [{ name, kind: 'categories', anyOf: [...item.any_of] }];
    if (item.present != null) return [{ name, kind: 'presence', present: item.present }];
    return [{ name, kind: 'range', min: item.min ?? undefined, max: item.max ?? undefined }];
  });
}

/**
 * The attribute filters as conditions (GraphQL's arrive unchecked; REST's and rules' were checked
 * by the same schema); faults go into `issues`, naming the field.
 */
function attributeConditions(items: readonly AttributeFilterArgs[], where: 'query' | 'body', issues: ValidationIssue[]): AttributeCondition[] {
  const parsed = attributeFilters.safeParse(items);
  if (!parsed.success) {
    issues.push(...validationIssues(parsed.error, where).map((issue) => ({ ...issue, loc: [where, 'attributes', ...issue.loc.slice(1)] })));
    return [];
  }
  return parsed.data.map(({ key, operator, value }) => (operator === 'exists' ? { key, operator } : { key, operator, value: value! }));
}

/** `sort_by` of a REST query, one of `fields` (422 `enum` otherwise). */
export function sortOf<const F extends readonly string[]>(query: SearchQuery, fields: F): { field: F[number]; direction: SortDirection } {
  const field = query.sort_by ?? 'start_time';
  if (!fields.includes(field)) {
    throw ValidationError.at(['query', 'sort_by'], `Input should be ${fields.map((f) => `'${f}'`).join(', ')}`, 'enum');
  }
  return { field, direction: query.sort_direction };
}
