// The inputs of online evaluation rules (docs/online-evaluation.md): a rule as created and
// patched, its filter (the trace search's filters under their query parameters' names, read by
// observability/search's `searchFilter`), its mapping, the jobs listing and the previews.
import { z } from 'zod';
import { EVALUATION_ENVIRONMENT, spanKinds, spanStatuses } from '../observability/ingestion/span-record.js';
import { attributeFilters } from '../observability/search/inputs.js';
import { pageLimit } from '../shared/http/params.js';
import { boolean, int, isoDate, name, number } from '../shared/validation.js';

export const ruleTargets = ['span', 'trace', 'session'] as const;
export type RuleTarget = (typeof ruleTargets)[number];

export const jobStatuses = ['PENDING', 'RUNNING', 'DONE', 'ERROR', 'SKIPPED'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export const skipReasons = ['sampled_out', 'filter_no_longer_matches', 'cost_limit_reached', 'rule_disabled', 'target_deleted', 'backlog_full'] as const;
export type SkipReason = (typeof skipReasons)[number];

const nonNegative = () => number({ min: 0 });

/**
 * A rule's filter: the query parameters of `GET /observability/traces` that say what a trace is
 * (not its time range, paging or sort), typed as JSON; `attributes` is the search's list of span
 * attribute filters. Assay's own calls never match, so
 * `environment` may not name theirs.
 */
export const ruleFilter = z
  .object({
    name_contains: z.string().min(1).optional(),
    spankind: z.array(z.enum(spanKinds)).optional(),
    status: z.array(z.enum(spanStatuses)).optional(),
    user_id: z.string().optional(),
    session_id: z.string().optional(),
    environment: z
      .string()
      .refine((value) => value !== EVALUATION_ENVIRONMENT, {
        message: `The environment "${EVALUATION_ENVIRONMENT}" holds Assay's own calls, which rules never evaluate`,
      })
      .optional(),
    app_id: z.string().optional(),
    variant_id: z.string().optional(),
    variant_name: z.string().optional(),
    model: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
    min_cost: nonNegative().optional(),
    max_cost: nonNegative().optional(),
    min_latency: nonNegative().optional(),
    max_latency: nonNegative().optional(),
    attributes: attributeFilters.optional(),
  })
  .strict()
  .describe('The trace search filters (names and meanings of GET /observability/traces query parameters), span attributes by key included');

export type RuleFilter = z.output<typeof ruleFilter>;

/** A JSONPath into the target's document (docs/online-evaluation.md#mapping): `$`, `.key`, `['key']`, `[0]`. */
const jsonPath = () => z.string().regex(/^\$(\.[A-Za-z_][\w-]*|\[\d+\]|\['[^']*'\])*$/, "A JSONPath such as $.input.question or $.attributes['gen_ai.system']");

export const ruleMapping = z
  .object({
    inputs: jsonPath().optional(),
    output: jsonPath().optional(),
    expected: jsonPath().optional(),
  })
  .strict()
  .describe('What the evaluator gets: JSONPaths into the target (input, output, metadata, attributes, spans, traces)');

export type RuleMapping = z.output<typeof ruleMapping>;

const samplingRate = () => number({ min: 0, max: 1 }).refine((value) => value > 0, { message: 'Input should be greater than 0' });

const fields = {
  name: name(),
  enabled: boolean(),
  target: z.enum(ruleTargets),
  filter: ruleFilter,
  sampling_rate: samplingRate(),
  delay_seconds: int({ min: 0, max: 7 * 24 * 3600 }),
  evaluator_config_id: z.string().min(1),
  mapping: ruleMapping.nullable(),
  score_name: name().nullable(),
  daily_cost_limit_usd: number({ min: 0 }).nullable(),
};

export const ruleInput = z.object({
  name: fields.name,
  enabled: fields.enabled.default(true),
  target: fields.target.default('trace'),
  filter: fields.filter.default({}),
  sampling_rate: fields.sampling_rate.default(1),
  delay_seconds: fields.delay_seconds.default(0),
  evaluator_config_id: fields.evaluator_config_id,
  mapping: fields.mapping.optional(),
  score_name: fields.score_name.optional(),
  daily_cost_limit_usd: fields.daily_cost_limit_usd.optional(),
});
export type RuleInput = z.output<typeof ruleInput>;

export const rulePatch = z.object({
  name: fields.name.optional(),
  enabled: fields.enabled.optional(),
  target: fields.target.optional(),
  filter: fields.filter.optional(),
  sampling_rate: fields.sampling_rate.optional(),
  delay_seconds: fields.delay_seconds.optional(),
  evaluator_config_id: fields.evaluator_config_id.optional(),
  mapping: fields.mapping.optional(),
  score_name: fields.score_name.optional(),
  daily_cost_limit_usd: fields.daily_cost_limit_usd.optional(),
});
export type RulePatch = z.output<typeof rulePatch>;

export const jobsQuery = z.object({
  status: z.enum(jobStatuses).optional(),
  limit: pageLimit(),
  cursor: z.string().min(1).optional(),
});

export const previewBody = z.object({ rule: ruleInput, trace_id: z.string().min(1) });
export const savedPreviewBody = z.object({ trace_id: z.string().min(1) });

export const backfillBody = z.object({
  started_after: isoDate(),
  started_before: isoDate(),
  limit: int({ min: 1, max: 50_000 }).default(50_000),
});
