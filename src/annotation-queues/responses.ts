// What the annotation queue routes answer, described for the OpenAPI document (docs/api.md), and
// the shaping of rows into it (docs/annotation-queues.md#rest).
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { scoreJson, scoreResponse } from '../scores/responses.js';
import { itemStatuses, queueTargetTypes, ruleConditions, type ItemStatus, type QueueTargetType, type RuleCondition } from './inputs.js';
import { configIdsOf, ruleIdsOf, type AddedItems, type ItemRow, type QueueRow } from './operations.js';
import type { Completion, NameAgreement, Progress } from './reviewing.js';
import type { QueueExport } from './export.js';
import { rowJson, testsetRowResponse } from '../testsets/responses.js';

export const queueResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    instructions: z.string().nullable(),
    target_type: z.enum(queueTargetTypes),
    score_config_ids: z.array(z.string()),
    annotators_per_item: z.number().int(),
    lock_seconds: z.number().int(),
    assignees: z.array(z.string()).describe('User ids; empty: every member who may write annotates'),
    rule_ids: z.array(z.string()).describe('Online evaluation rules whose scored targets become items'),
    rule_condition: z.enum(ruleConditions).describe('all: every score of those rules adds its target; failed: a false BOOLEAN or a NUMERIC below 0.5'),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'AnnotationQueue' });

export function queueJson(row: QueueRow): z.output<typeof queueResponse> {
  return {
    id: row.id,
    name: row.name,
    instructions: row.instructions,
    target_type: row.targetType as QueueTargetType,
    score_config_ids: configIdsOf(row),
    annotators_per_item: row.annotatorsPerItem,
    lock_seconds: row.lockSeconds,
    assignees: row.assignees.map((assignee) => assignee.userId),
    rule_ids: ruleIdsOf(row),
    rule_condition: row.ruleCondition as RuleCondition,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const itemResponse = z
  .object({
    id: z.string(),
    queue_id: z.string(),
    target_id: z.string().describe('The trace, span, session or scenario id'),
    trace_id: z.string().nullable().describe("A span's trace; null for other targets"),
    status: z.enum(itemStatuses).describe('done when it has annotators_per_item annotations'),
    annotation_count: z.number().int(),
    locked_by: z.string().nullable().describe('The reviewer holding it (`user:<id>`, `api_key:<id>`), while the lock lasts'),
    locked_until: timestamp().nullable(),
    created_at: timestamp(),
    completed_at: timestamp().nullable(),
  })
  .meta({ id: 'AnnotationQueueItem' });

/** An item; a lock that expired is shown as none (the item is free). */
export function itemJson(row: ItemRow, now = new Date()): z.output<typeof itemResponse> {
  const locked = row.lockedUntil !== null && row.lockedUntil > now;
  return {
    id: row.id,
    queue_id: row.queueId,
    target_id: row.targetId,
    trace_id: row.traceId || null,
    status: row.status as ItemStatus,
    annotation_count: row.annotationCount,
    locked_by: locked ? row.lockedBy : null,
    locked_until: locked ? row.lockedUntil!.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

export const addedItemsResponse = z.object({
  added: z.number().int().describe('Items this request made'),
  existing: z.number().int().describe('Targets the queue had already (kept as they were)'),
  matched: z.number().int().nullable().describe('With a filter: how many matched (only `limit` were added); else null'),
  items: z.array(itemResponse).describe('The items of the targets given, new and existing'),
});

export function addedItemsJson(added: AddedItems): z.output<typeof addedItemsResponse> {
  return { added: added.added, existing: added.existing, matched: added.matched, items: added.items.map((item) => itemJson(item)) };
}

export const itemListResponse = z.object({
  items: z.array(itemResponse),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});

export const nextResponse = z.object({
  item: itemResponse.nullable().describe('The item now held by the caller; null when nothing is left for them'),
});

export const completionResponse = z.object({
  item: itemResponse,
  scores: z.array(scoreResponse).describe('The scores written (source annotation, the queue in metadata.queue_id)'),
});

export function completionJson(completion: Completion): z.output<typeof completionResponse> {
  return { item: itemJson(completion.item), scores: completion.scores.map(scoreJson) };
}

export const progressResponse = z
  .object({
    items: z.number().int(),
    done: z.number().int(),
    pending: z.number().int(),
    in_review: z.number().int().describe('Pending items a reviewer holds now'),
    annotations: z.number().int(),
    required: z.number().int().describe('items × annotators_per_item'),
    reviewers: z.array(
      z.object({
        annotator: z.string().describe('`user:<id>` or `api_key:<id>`'),
        label: z.string().nullable().describe("The user's email or the key's name and prefix"),
        annotations: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'AnnotationQueueProgress' });

export function progressJson(progress: Progress): z.output<typeof progressResponse> {
  return progress;
}

export const agreementResponse = z.array(
  z
    .object({
      name: z.string().describe('The score name'),
      scenarios: z.number().int().describe('Items with scores of this name from two or more reviewers'),
      judgements: z.number().int(),
      observed_agreement: z.number().nullable(),
      expected_agreement: z.number().nullable(),
      fleiss_kappa: z.number().nullable(),
      pairs: z.array(
        z.object({
          judge_a: z.string(),
          judge_b: z.string(),
          scenarios: z.number().int(),
          observed_agreement: z.number(),
          cohen_kappa: z.number().nullable(),
        }),
      ),
    })
    .meta({ id: 'AnnotationQueueAgreement' }),
);

export function agreementJson(rows: NameAgreement[]): z.output<typeof agreementResponse> {
  return rows;
}

export const exportResponse = z
  .object({
    testset_id: z.string().nullable().describe('The test set written to; null in a preview for a new one'),
    matched: z.number().int().describe("The queue's reviewed (done) items"),
    capped: z.boolean().describe('Whether there were more reviewed items than `limit` took'),
    skipped: z.number().int().describe('Reviewed items whose trace or span is no longer stored, left out'),
    revision: z.number().int().nullable().describe('The test set revision the rows were written as; null for a preview'),
    rows: z.array(testsetRowResponse).describe('One per exported item, each with its source trace and span'),
  })
  .meta({ id: 'AnnotationQueueExport' });

export function exportJson(made: QueueExport): z.output<typeof exportResponse> {
  return {
    testset_id: made.testsetId,
    matched: made.matched,
    capped: made.capped,
    skipped: made.skipped,
    revision: made.revision,
    rows: made.rows.map(rowJson),
  };
}
