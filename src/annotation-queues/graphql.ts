// GraphQL of annotation queues (docs/annotation-queues.md#graphql): the same operations and
// validation as REST (routes.ts). Queries need `read`; every mutation, taking and completing items
// included, `write`, so viewers read queues but never annotate.
import { builder } from '../shared/graphql/builder.js';
import { globalId, inIdOrder } from '../shared/graphql/ids.js';
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { ScoreConfigRef, ScoreRef } from '../scores/graphql.js';
import { AgreementRef } from '../human-evaluations/statistics-graphql.js';
import * as scoreConfigs from '../scores/score-configs.js';
import { filterOf, searchArgs } from '../observability/search/graphql.js';
import {
  completeBody,
  itemStatuses,
  itemTarget,
  MAX_ITEMS_PER_REQUEST,
  queueInput,
  queuePatch,
  queueTargetTypes,
  ruleConditions,
  type ItemStatus,
  type QueueTargetType,
  type RuleCondition,
} from './inputs.js';
import { EvaluationRuleRef } from '../online-evaluation/graphql.js';
import { rulesByIds } from '../online-evaluation/operations.js';
import * as queues from './operations.js';
import * as reviewing from './reviewing.js';
import { exportQueue, type QueueExport } from './export.js';
import { exportBody } from './inputs.js';
import { MappedRow, Testset, TestsetRevision } from '../testsets/graphql.js';
import * as testsets from '../testsets/operations.js';
import * as testsetRevisions from '../testsets/row-reads.js';
import { ValidationError } from '../shared/errors.js';
import { z } from 'zod';

const TargetTypeEnum = builder.enumType('AnnotationQueueTargetType', {
  description: 'What the items of a queue are.',
  values: upperCaseValues(queueTargetTypes, {
    trace: 'Traces (`targetId` a trace id).',
    span: 'Spans (`targetId` a span id, with its `traceId`).',
    session: 'Sessions (`targetId` a session id).',
    evaluation_scenario: 'Test cases of Assay evaluations (`targetId` a scenario id).',
  }),
});

const RuleConditionEnum = builder.enumType('AnnotationQueueRuleCondition', {
  description: "Which scores of a queue's online evaluation rules add their target to it.",
  values: upperCaseValues(ruleConditions, {
    all: 'Every score.',
    failed: 'Failed ones: a false BOOLEAN, or a NUMERIC below 0.5.',
  }),
});

const ItemStatusEnum = builder.enumType('AnnotationQueueItemStatus', {
  description: 'Where an item stands.',
  values: upperCaseValues(itemStatuses, {
    pending: 'It needs more annotations.',
    done: 'It has `annotatorsPerItem` annotations.',
  }),
});

const ReviewerProgress = builder.objectRef<reviewing.ReviewerProgress>('AnnotationQueueReviewerProgress').implement({
  description: "One reviewer's share of a queue's annotations.",
  fields: (t) => ({
    annotator: t.exposeString('annotator', { description: 'The reviewer: `user:<id>` or `api_key:<id>`.' }),
    label: t.exposeString('label', { nullable: true, description: "The user's email or the key's name and prefix." }),
    annotations: t.exposeInt('annotations', { description: 'Items they completed.' }),
  }),
});

const Progress = builder.objectRef<reviewing.Progress>('AnnotationQueueProgress').implement({
  description: "A queue's progress, in all and per reviewer.",
  fields: (t) => ({
    items: t.exposeInt('items', { description: 'Items in the queue.' }),
    done: t.exposeInt('done', { description: 'Items with all their annotations.' }),
    pending: t.exposeInt('pending', { description: 'Items that need more.' }),
    inReview: t.exposeInt('in_review', { description: 'Pending items a reviewer holds now.' }),
    annotations: t.exposeInt('annotations', { description: 'Annotations made.' }),
    required: t.exposeInt('required', { description: 'Annotations the queue needs in all: items × annotatorsPerItem.' }),
    reviewers: t.field({ type: [ReviewerProgress], description: 'Each reviewer, most annotations first.', resolve: (progress) => progress.reviewers }),
  }),
});

const Agreement = builder.objectRef<reviewing.NameAgreement>('AnnotationQueueAgreement').implement({
  description: "Reviewers' agreement on one score name, over the items two or more of them scored.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The score name.' }),
    agreement: t.field({
      type: AgreementRef,
      description: "Fleiss' kappa over the items (its scenarios), Cohen's per pair of reviewers (its judges), as human evaluations compute them.",
      resolve: (row) => row,
    }),
  }),
});

export const AnnotationQueueItemRef = builder.prismaNode('AnnotationQueueItem', {
  description: 'One target in an annotation queue, with its annotations counted and its lock.',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, queue: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses (`/annotation-queues/{queue}/items/{id}`).' }),
    targetId: t.exposeString('targetId', { description: 'The trace, span, session or scenario id.' }),
    traceId: t.string({ nullable: true, description: "A span's trace; null for other targets.", resolve: (row) => row.traceId || null }),
    status: t.field({ type: ItemStatusEnum, description: 'Where it stands.', resolve: (row) => row.status as ItemStatus }),
    annotationCount: t.exposeInt('annotationCount', { description: 'Reviewers who completed it.' }),
    lockedBy: t.string({
      nullable: true,
      description: 'The reviewer holding it (`user:<id>`, `api_key:<id>`) while the lock lasts; null when free.',
      resolve: (row) => (row.lockedUntil && row.lockedUntil > new Date() ? row.lockedBy : null),
    }),
    lockedUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the lock ends; null when free.',
      resolve: (row) => (row.lockedUntil && row.lockedUntil > new Date() ? row.lockedUntil : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it got its last annotation; null while pending.' }),
  }),
});

export const AnnotationQueueRef = builder.prismaNode('AnnotationQueue', {
  description: 'A queue of traces, spans, sessions or evaluation scenarios that reviewers work through (docs/annotation-queues.md).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  include: { assignees: { orderBy: { userId: 'asc' } } },
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses (`/annotation-queues/{id}`).' }),
    name: t.exposeString('name', { description: 'Its name.' }),
    instructions: t.exposeString('instructions', { nullable: true, description: 'What reviewers should look for (Markdown).' }),
    targetType: t.field({ type: TargetTypeEnum, description: 'What its items are.', resolve: (row) => row.targetType as QueueTargetType }),
    scoreConfigs: t.field({
      type: [ScoreConfigRef],
      description: 'The score configs a reviewer fills in, in order.',
      resolve: async (row, _args, ctx) => {
        const ids = queues.configIdsOf(row);
        return inIdOrder(ids, await scoreConfigs.scoreConfigsByIds(ctx, ids)).filter((config) => config !== null);
      },
    }),
    annotatorsPerItem: t.exposeInt('annotatorsPerItem', { description: 'An item is done when this many reviewers completed it.' }),
    lockSeconds: t.exposeInt('lockSeconds', { description: 'How long `nextAnnotationQueueItem` keeps an item for its reviewer.' }),
    assigneeIds: t.stringList({
      description: 'The REST ids of the users who annotate it; empty: every member who may write.',
      resolve: (row) => row.assignees.map((assignee) => assignee.userId),
    }),
    rules: t.field({
      type: [EvaluationRuleRef],
      description: 'The online evaluation rules that feed it: each target they score becomes an item (docs/annotation-queues.md#online-rules).',
      resolve: async (row, _args, ctx) => {
        const ids = queues.ruleIdsOf(row);
        return inIdOrder(ids, await rulesByIds(ctx, ids)).filter((rule) => rule !== null);
      },
    }),
    ruleCondition: t.field({
      type: RuleConditionEnum,
      description: "Which of its rules' scores add their target.",
      resolve: (row) => row.ruleCondition as RuleCondition,
    }),
    progress: t.field({ type: Progress, description: 'Its progress, in all and per reviewer.', resolve: (row, _args, ctx) => reviewing.progress(ctx, row.id) }),
    agreement: t.field({
      type: [Agreement],
      description: 'Agreement per score name where items have several reviewers.',
      resolve: (row, _args, ctx) => reviewing.agreement(ctx, row.id),
    }),
    items: t.connection({
      type: AnnotationQueueItemRef,
      description: 'Its items in the order added. Pages forward only (`first`, `after`).',
      args: { status: t.arg({ type: ItemStatusEnum, description: 'Only items in this state.' }) },
      resolve: async (row, args, ctx) => {
        if (args.last != null || args.before != null) throw ValidationError.at(['args', 'last'], 'Items page forward only: use first and after');
        const first = args.first ?? 50;
        if (first < 1 || first > 1000) throw ValidationError.at(['args', 'first'], 'Input should be between 1 and 1000');
        const page = await queues.listItems(ctx, row.id, { status: args.status ?? undefined, first, after: args.after });
        return {
          edges: page.items.map((item) => ({ cursor: item.id, node: item })),
          pageInfo: {
            hasNextPage: page.nextCursor !== null,
            hasPreviousPage: args.after != null,
            startCursor: page.items[0]?.id ?? null,
            endCursor: page.items.at(-1)?.id ?? null,
          },
        };
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

// Added here, as the queue's type is defined after its items'.
builder.prismaObjectField('AnnotationQueueItem', 'queue', (t) =>
  t.field({ type: AnnotationQueueRef, description: 'Its queue.', resolve: (row, _args, ctx) => queues.getQueue(ctx, row.queueId) }),
);

const AnnotationQueueConnection = builder.connectionObject(
  { type: AnnotationQueueRef, name: 'AnnotationQueueConnection', description: 'Annotation queues, a page at a time, newest first.' },
  { description: 'An annotation queue and its cursor.' },
);

const QueueInput = builder.inputType('AnnotationQueueInput', {
  description: 'A new annotation queue (REST: the body of `POST /annotation-queues`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Its name.' }),
    instructions: t.string({ description: 'What reviewers should look for (Markdown).' }),
    targetType: t.field({ type: TargetTypeEnum, required: true, description: 'What its items are; never changes.' }),
    scoreConfigIds: t.globalIDList({ for: ScoreConfigRef, required: true, description: 'The score configs a reviewer fills in, in order.' }),
    annotatorsPerItem: t.int({ description: 'Reviewers per item, 1 when absent.' }),
    lockSeconds: t.int({ description: 'How long an item is held for its reviewer, 300 when absent.' }),
    assigneeIds: t.stringList({ description: 'REST ids of members who annotate it; none: every member who may write.' }),
    ruleIds: t.globalIDList({
      for: EvaluationRuleRef,
      description: "Online evaluation rules that feed it, each scoring the queue's target type; none when absent.",
    }),
    ruleCondition: t.field({ type: RuleConditionEnum, description: 'Which of their scores add their target; ALL when absent.' }),
  }),
});

const QueuePatchInput = builder.inputType('AnnotationQueuePatchInput', {
  description: 'The fields of a queue to change (REST: `PATCH /annotation-queues/{id}`); its target type never changes.',
  fields: (t) => ({
    name: t.string({ description: 'A new name.' }),
    instructions: t.string({ description: 'New instructions; null for none.' }),
    scoreConfigIds: t.globalIDList({ for: ScoreConfigRef, description: 'The score configs, all of them.' }),
    annotatorsPerItem: t.int({ description: 'A new count; items are done or pending again by it.' }),
    lockSeconds: t.int({ description: 'A new lock length, for the items taken from now on.' }),
    assigneeIds: t.stringList({ description: 'The assignees, all of them.' }),
    ruleIds: t.globalIDList({ for: EvaluationRuleRef, description: 'The rules that feed it, all of them.' }),
    ruleCondition: t.field({ type: RuleConditionEnum, description: "Which of the rules' scores add their target." }),
  }),
});

const TargetInput = builder.inputType('AnnotationQueueTargetInput', {
  description: 'A target to add to a queue.',
  fields: (t) => ({
    targetId: t.string({ required: true, description: 'The trace, span, session or scenario id.' }),
    traceId: t.string({ description: "A span's trace id (span queues only)." }),
  }),
});

const AnnotationScoreInput = builder.inputType('AnnotationScoreInput', {
  description: "A reviewer's value for one of the queue's score configs.",
  fields: (t) => ({
    configId: t.globalID({ for: ScoreConfigRef, required: true, description: "One of the queue's score configs." }),
    value: t.float({ description: "NUMERIC: the number; BOOLEAN: 1 or 0; CATEGORICAL: the category's value." }),
    stringValue: t.string({ description: 'BOOLEAN: "True" or "False"; CATEGORICAL: the label; TEXT: the text.' }),
    comment: t.string({ description: "The reviewer's comment." }),
  }),
});

const AddedItems = builder.objectRef<queues.AddedItems>('AddedAnnotationQueueItems').implement({
  description: 'What adding items did.',
  fields: (t) => ({
    added: t.exposeInt('added', { description: 'Items made.' }),
    existing: t.exposeInt('existing', { description: 'Targets the queue had already (kept as they were).' }),
    matched: t.exposeInt('matched', { nullable: true, description: 'From a filter: how many matched (only `limit` were added); else null.' }),
    items: t.field({ type: [AnnotationQueueItemRef], description: 'The items of the targets, new and existing.', resolve: (added) => added.items }),
  }),
});

const Completion = builder.objectRef<reviewing.Completion>('AnnotationQueueCompletion').implement({
  description: "A completed item and the reviewer's scores.",
  fields: (t) => ({
    item: t.field({ type: AnnotationQueueItemRef, description: 'The item, its count updated.', resolve: (completion) => completion.item }),
    scores: t.field({
      type: [ScoreRef],
      description: 'The scores written (source ANNOTATION, the queue in metadata.queue_id).',
      resolve: (completion) => completion.scores,
    }),
  }),
});

const ExportInput = builder.inputType('AnnotationQueueExportInput', {
  description:
    "Where and how a queue's reviewed items become test cases (REST: the body of `POST /annotation-queues/{id}/export`): exactly one of testsetId, testsetName.",
  fields: (t) => ({
    testsetId: t.globalID({ for: Testset, description: 'The test set the rows are appended to (a new revision).' }),
    testsetName: t.string({ description: 'Or a new test set of this name.' }),
    mapping: t.field({
      type: 'JSON',
      required: true,
      description: "Column → JSONPath into the item's span (a trace's root span): `$.input…`, `$.output…`, `$.metadata…` or `$.attributes…`.",
    }),
    expectedColumn: t.string({ description: "The column the reviewers' correction goes to; `correct_answer` when absent." }),
    limit: t.int({ description: 'At most this many reviewed items, oldest first, 1 to 1000; 1000 when absent.' }),
    preview: t.boolean({ description: 'Answer the rows without writing them; false when absent.' }),
  }),
});

const Export = builder.objectRef<QueueExport>('AnnotationQueueExport').implement({
  description: 'What `exportAnnotationQueue` wrote or would write.',
  fields: (t) => ({
    testset: t.prismaField({
      type: Testset,
      nullable: true,
      description: 'The test set written to; null in a preview for a new one.',
      resolve: (query, made, _args, ctx) => (made.testsetId === null ? null : testsets.getTestset(ctx, made.testsetId, query)),
    }),
    matched: t.exposeInt('matched', { description: "The queue's reviewed (done) items." }),
    capped: t.exposeBoolean('capped', { description: 'Whether there were more reviewed items than `limit` took.' }),
    skipped: t.exposeInt('skipped', { description: 'Reviewed items whose trace or span is no longer stored, left out.' }),
    revision: t.prismaField({
      type: TestsetRevision,
      nullable: true,
      description: 'The revision the rows were written as; null for a preview.',
      resolve: (query, made, _args, ctx) =>
        made.revision === null || made.testsetId === null ? null : testsetRevisions.getRevision(ctx, made.testsetId, made.revision, query),
    }),
    rows: t.field({ type: [MappedRow], description: 'One per exported item, with its source trace and span.', resolve: (made) => made.rows }),
  }),
});

/** The REST body of a queue's GraphQL input, checked by REST's schema; global config ids read as REST ids. */
function queueBody(input: object): Record<string, unknown> {
  const { assigneeIds, ...rest } = input as { assigneeIds?: string[] | null };
  return { ...restFields(rest), ...(assigneeIds !== undefined && { assignees: assigneeIds }) };
}

builder.queryFields((t) => ({
  annotationQueues: t.connection(
    {
      type: AnnotationQueueRef,
      description: "The project's annotation queues, newest first (REST: `GET /annotation-queues`).",
      resolve: async (_root, args, ctx) => resolveArrayConnection({ args }, await queues.listQueues(ctx)),
    },
    AnnotationQueueConnection,
  ),
}));

builder.mutationFields((t) => ({
  createAnnotationQueue: t.field({
    type: AnnotationQueueRef,
    description: 'Creates an annotation queue.',
    args: { input: t.arg({ type: QueueInput, required: true, description: 'The queue.' }) },
    resolve: (_root, args, ctx) => queues.createQueue(ctx, parseInput(queueInput, queueBody(args.input), 'body')),
  }),
  updateAnnotationQueue: t.field({
    type: AnnotationQueueRef,
    description: 'Changes an annotation queue.',
    args: {
      id: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }),
      input: t.arg({ type: QueuePatchInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_root, args, ctx) => queues.updateQueue(ctx, args.id.id, parseInput(queuePatch, queueBody(args.input), 'body')),
  }),
  deleteAnnotationQueue: t.id({
    description: 'Deletes an annotation queue and its items (the scores written stay); answers its global id.',
    args: { id: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }) },
    resolve: async (_root, args, ctx) => {
      await queues.deleteQueue(ctx, args.id.id);
      return globalId('AnnotationQueue', args.id.id);
    },
  }),
  addAnnotationQueueItems: t.field({
    type: AddedItems,
    description: `Adds targets (1 to ${MAX_ITEMS_PER_REQUEST}) to a queue; those it has already are kept as they are.`,
    args: {
      queueId: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }),
      targets: t.arg({ type: [TargetInput], required: true, description: 'The targets.' }),
    },
    resolve: (_root, args, ctx) => {
      const targets = parseInput(
        z.array(itemTarget).min(1).max(MAX_ITEMS_PER_REQUEST),
        args.targets.map((target) => restFields(target)),
        'body',
      );
      return queues.addItems(ctx, args.queueId.id, { targets, at: (index) => ['body', index] });
    },
  }),
  addAnnotationQueueItemsFromFilter: t.field({
    type: AddedItems,
    description: 'Adds the traces (or, to a span queue, the spans) matching the filters, newest first, at most `limit`; `matched` tells how many matched.',
    args: {
      queueId: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }),
      limit: t.arg.int({ description: `The most added, 1 to ${MAX_ITEMS_PER_REQUEST}; 100 when absent.` }),
      ...searchArgs(t),
    },
    resolve: (_root, { queueId, limit, ...filter }, ctx) => {
      const max = limit ?? 100;
      if (max < 1 || max > MAX_ITEMS_PER_REQUEST) throw ValidationError.at(['args', 'limit'], `Input should be between 1 and ${MAX_ITEMS_PER_REQUEST}`);
      return queues.addItems(ctx, queueId.id, { filter: filterOf(filter), limit: max, at: ['args', 'queueId'] });
    },
  }),
  removeAnnotationQueueItem: t.id({
    description: 'Removes an item from its queue (its scores stay); answers its global id.',
    args: { id: t.arg.globalID({ for: AnnotationQueueItemRef, required: true, description: 'The global id of an AnnotationQueueItem.' }) },
    resolve: async (_root, args, ctx) => {
      await queues.deleteItem(ctx, await queues.queueIdOfItem(ctx, args.id.id), args.id.id);
      return globalId('AnnotationQueueItem', args.id.id);
    },
  }),
  nextAnnotationQueueItem: t.field({
    type: AnnotationQueueItemRef,
    nullable: true,
    description:
      'Takes the next item for the caller, locked to them for the queue’s lockSeconds (the one they hold, if any); null when nothing is left for them.',
    args: { queueId: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }) },
    resolve: (_root, args, ctx) => reviewing.nextItem(ctx, args.queueId.id),
  }),
  releaseAnnotationQueueItem: t.field({
    type: AnnotationQueueItemRef,
    description: 'Gives back an item the caller holds.',
    args: { id: t.arg.globalID({ for: AnnotationQueueItemRef, required: true, description: 'The global id of an AnnotationQueueItem.' }) },
    resolve: async (_root, args, ctx) => {
      return reviewing.releaseItem(ctx, await queues.queueIdOfItem(ctx, args.id.id), args.id.id);
    },
  }),
  exportAnnotationQueue: t.field({
    type: Export,
    description:
      "Exports the queue's reviewed items to a test set: mapped columns, each score config a column, the correction as the expected answer; a preview writes nothing (REST `POST /annotation-queues/{id}/export`).",
    args: {
      id: t.arg.globalID({ for: AnnotationQueueRef, required: true, description: 'The global id of an AnnotationQueue.' }),
      input: t.arg({ type: ExportInput, required: true, description: 'The test set, the mapping and whether to preview.' }),
    },
    resolve: (_root, args, ctx) => exportQueue(ctx, args.id.id, parseInput(exportBody, restFields(args.input), 'body')),
  }),
  completeAnnotationQueueItem: t.field({
    type: Completion,
    description:
      "Writes the caller's scores for the item and counts one annotation; CONFLICT when it is done, the caller did it already, or another reviewer holds it.",
    args: {
      id: t.arg.globalID({ for: AnnotationQueueItemRef, required: true, description: 'The global id of an AnnotationQueueItem.' }),
      scores: t.arg({ type: [AnnotationScoreInput], required: true, description: "The reviewer's values, at most one per config." }),
      correction: t.arg.string({
        description:
          'The reviewer\'s corrected answer (an edited output), written as a TEXT score named "correction"; an export takes it as the expected answer.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const body = parseInput(completeBody, { scores: args.scores.map((score) => restFields(score)), correction: args.correction }, 'body');
      return reviewing.completeItem(ctx, await queues.queueIdOfItem(ctx, args.id.id), args.id.id, body);
    },
  }),
}));
