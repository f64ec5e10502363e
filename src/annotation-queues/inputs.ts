// The inputs of annotation queues (docs/annotation-queues.md), REST and GraphQL alike.
import { z } from 'zod';
import { searchFilterQuery } from '../observability/search/inputs.js';
import { pageLimit } from '../shared/http/params.js';
import { MAX_TEXT, scoreInput } from '../scores/inputs.js';
import { spanMapping, TESTSET_NAME_MAX } from '../testsets/inputs.js';
import { name } from '../shared/validation.js';

export const queueTargetTypes = ['trace', 'span', 'session', 'evaluation_scenario'] as const;
export type QueueTargetType = (typeof queueTargetTypes)[number];

/** Which scores of a queue's rules add their target: all, or only failed ones (a false BOOLEAN, a NUMERIC below FAILED_BELOW). */
export const ruleConditions = ['all', 'failed'] as const;
export type RuleCondition = (typeof ruleConditions)[number];

/** A NUMERIC score below this has failed (as a false BOOLEAN, 0, has). */
export const FAILED_BELOW = 0.5;

/** Most items one request adds (a list, or a filter's matches). */
export const MAX_ITEMS_PER_REQUEST = 1000;

const id = () => z.string().trim().min(1).max(200);

const queueFields = {
  name: z.string().trim().min(1).max(200),
  instructions: z.string().max(10_000).nullish().describe('What reviewers should look for (Markdown)'),
  score_config_ids: z.array(id()).min(1).max(50).describe('The score configs a reviewer fills in, in order; each a config of the project, not archived'),
  annotators_per_item: z.number().int().min(1).max(100).describe('An item is done when this many reviewers completed it'),
  lock_seconds: z.number().int().min(1).max(86_400).describe('How long `next` keeps an item for its reviewer'),
  assignees: z.array(id()).max(1000).describe("User ids of the project's members who annotate it; when empty, every member who may write"),
  rule_ids: z
    .array(id())
    .max(50)
    .describe("Online evaluation rules that feed it: each target they score becomes an item (the rule's target must be the queue's target_type)"),
  rule_condition: z
    .enum(ruleConditions)
    .describe('all: every score of those rules adds its target; failed: only a false BOOLEAN or a NUMERIC below 0.5 (docs/annotation-queues.md#online-rules)'),
};

export const queueInput = z.object({
  ...queueFields,
  target_type: z.enum(queueTargetTypes).describe('What the items are: traces, spans (with their trace id), sessions or evaluation scenarios'),
  annotators_per_item: queueFields.annotators_per_item.default(1),
  lock_seconds: queueFields.lock_seconds.default(300),
  assignees: queueFields.assignees.default([]),
  rule_ids: queueFields.rule_ids.default([]),
  rule_condition: queueFields.rule_condition.default('all'),
});
export type QueueInput = z.output<typeof queueInput>;

/** A queue changed: any field but `target_type` (its items are of that type). */
export const queuePatch = z.object(queueFields).partial();
export type QueuePatch = z.output<typeof queuePatch>;

export const itemTarget = z.object({
  target_id: id().describe('The trace, span, session or scenario id'),
  trace_id: id().nullish().describe("A span's trace id (required for span queues, refused for the others)"),
});
export type ItemTarget = z.output<typeof itemTarget>;

/** A query string's value of a JSON value: a list of names joined by commas, other lists (score filters) as JSON. */
function queryValue(value: string | number | boolean | unknown[]): string {
  if (!Array.isArray(value)) return String(value);
  return value.every((item) => typeof item === 'string') ? value.join(',') : JSON.stringify(value);
}

/** A filter's fields as JSON (numbers, booleans, lists), read as the trace search's query string reads them. */
const filterBody = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown())]))
  .transform((fields) => Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, queryValue(value)])))
  .pipe(searchFilterQuery)
  .describe('The filters of GET /observability/traces (or /spans for a span queue), score filters included: its matches, newest first, become items');

export const itemsBody = z
  .object({
    target_id: itemTarget.shape.target_id.optional(),
    trace_id: itemTarget.shape.trace_id,
    items: z.array(itemTarget).min(1).max(MAX_ITEMS_PER_REQUEST).optional().describe('Several targets at once'),
    filter: filterBody.optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_ITEMS_PER_REQUEST)
      .default(100)
      .describe('With `filter`: the most matches added (the answer tells how many matched)'),
  })
  .superRefine((body, ctx) => {
    const given = (['target_id', 'items', 'filter'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: given.length ? [given[1]] : ['target_id'],
        message: 'Give exactly one of target_id, items or filter',
      });
  });
export type ItemsBody = z.output<typeof itemsBody>;

export const itemStatuses = ['pending', 'done'] as const;
export type ItemStatus = (typeof itemStatuses)[number];

export const itemListQuery = z.object({
  status: z.enum(itemStatuses).optional(),
  limit: pageLimit(),
  cursor: z.string().min(1).optional(),
});

/** One score of a completion: a value for one of the queue's configs (the target is the item's). */
export const annotationScore = scoreInput.pick({ value: true, string_value: true, comment: true }).extend({
  config_id: id().describe("One of the queue's score configs"),
});
export type AnnotationScore = z.output<typeof annotationScore>;

/** The name of the TEXT score a completion's correction is written as. */
export const CORRECTION_SCORE = 'correction';

export const completeBody = z.object({
  scores: z.array(annotationScore).max(50).default([]).describe("The reviewer's values, at most one per config"),
  correction: z
    .string()
    .max(MAX_TEXT)
    .nullish()
    .describe(`The reviewer's corrected answer (an edited output): a TEXT score named "${CORRECTION_SCORE}", which an export takes as the expected answer`),
});
export type CompleteBody = z.output<typeof completeBody>;

/** Most reviewed items one export writes (a test set takes its rows in one revision). */
export const MAX_EXPORT_ITEMS = 1000;

/** `POST /annotation-queues/{id}/export` (docs/annotation-queues.md#export-to-a-test-set): exactly one of testset_id, testset_name. */
export const exportBody = z
  .object({
    testset_id: id().optional().describe('The test set the rows are appended to (a new revision)'),
    testset_name: name().max(TESTSET_NAME_MAX).optional().describe('Or a new test set of this name'),
    mapping: spanMapping,
    expected_column: name()
      .default('correct_answer')
      .describe("The column the reviewers' correction goes to (the evaluators' expected answer), over what the mapping put there"),
    limit: z.int().min(1).max(MAX_EXPORT_ITEMS).default(MAX_EXPORT_ITEMS).describe('At most this many reviewed items, oldest first'),
    preview: z.boolean().default(false).describe('Answer the rows without writing them'),
  })
  .superRefine((body, ctx) => {
    const given = (['testset_id', 'testset_name'] as const).filter((key) => body[key] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({ code: 'custom', path: given.length ? [given[1]] : ['testset_id'], message: 'Give exactly one of testset_id or testset_name' });
  });
export type ExportBody = z.output<typeof exportBody>;
