// REST routes of annotation queues (docs/annotation-queues.md#rest). Reading needs `read`; every
// write, `next` and `complete` included, needs `write`, so viewers read queues but never annotate.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../shared/http/route.js';
import { searchFilter } from '../observability/search/inputs.js';
import { completeBody, exportBody, itemListQuery, itemsBody, queueInput, queuePatch, type ItemsBody } from './inputs.js';
import { exportQueue } from './export.js';
import * as queues from './operations.js';
import * as reviewing from './reviewing.js';
import {
  addedItemsJson,
  addedItemsResponse,
  agreementJson,
  agreementResponse,
  completionJson,
  completionResponse,
  exportJson,
  exportResponse,
  itemJson,
  itemListResponse,
  itemResponse,
  nextResponse,
  progressJson,
  progressResponse,
  queueJson,
  queueResponse,
} from './responses.js';
import { z } from 'zod';

const tag = 'annotation queues';

/** What `POST …/items` adds: one target, a list, or a filter's matches (read as the trace search reads its query). */
function itemSource(body: ItemsBody): Parameters<typeof queues.addItems>[2] {
  if (body.filter) return { filter: searchFilter(body.filter, 'body'), limit: body.limit, at: ['body', 'filter'] };
  if (body.items) return { targets: body.items, at: (index) => ['body', 'items', index] };
  return { targets: [{ target_id: body.target_id!, trace_id: body.trace_id }], at: () => ['body'] };
}

export function annotationQueueRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/annotation-queues',
    {
      tag,
      summary: 'Create an annotation queue',
      body: queueInput,
      response: queueResponse,
      examples: {
        review: { name: 'Weekly review', target_type: 'trace', score_config_ids: ['0199…'], annotators_per_item: 2, instructions: 'Is the answer right?' },
      },
    },
    async (req, { body }) => queueJson(await queues.createQueue(req.ctx, body)),
  );
  rest.get('/annotation-queues', { tag, summary: 'List annotation queues, newest first', response: z.array(queueResponse) }, async (req) =>
    (await queues.listQueues(req.ctx)).map(queueJson),
  );
  rest.get('/annotation-queues/:queue_id', { tag, summary: 'One annotation queue', response: queueResponse, errors: [404] }, async (req, { params }) =>
    queueJson(await queues.getQueue(req.ctx, params.queue_id)),
  );
  rest.patch(
    '/annotation-queues/:queue_id',
    { tag, summary: 'Change an annotation queue (not its target type)', body: queuePatch, response: queueResponse, errors: [404] },
    async (req, { params, body }) => queueJson(await queues.updateQueue(req.ctx, params.queue_id, body)),
  );
  rest.delete(
    '/annotation-queues/:queue_id',
    { tag, summary: 'Delete an annotation queue and its items (the scores written stay)', noContent: true, errors: [404] },
    (req, { params }) => queues.deleteQueue(req.ctx, params.queue_id),
  );
  rest.post(
    '/annotation-queues/:queue_id/items',
    {
      tag,
      summary: 'Add items: one target, a list, or a filter’s matches (capped)',
      description: 'Exactly one of `target_id`, `items` or `filter`. Targets the queue has already are kept as they are.',
      body: itemsBody,
      response: addedItemsResponse,
      errors: [404],
      examples: {
        one: { target_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
        list: { items: [{ target_id: '4bf92f3577b34da6a3ce929d0e0e4736' }, { target_id: '5ce0e9a56015fec5aadfa328ae398115' }] },
        filter: { filter: { status: ['ERROR'], started_after: '2026-11-01T00:00:00Z' }, limit: 200 },
      },
    },
    async (req, { params, body }) => addedItemsJson(await queues.addItems(req.ctx, params.queue_id, itemSource(body))),
  );
  rest.get(
    '/annotation-queues/:queue_id/items',
    { tag, summary: 'List a queue’s items in the order added', query: itemListQuery, response: itemListResponse, errors: [404] },
    async (req, { params, query }) => {
      const page = await queues.listItems(req.ctx, params.queue_id, { status: query.status, first: query.limit, after: query.cursor });
      return { items: page.items.map((item) => itemJson(item)), next_cursor: page.nextCursor };
    },
  );
  rest.get('/annotation-queues/:queue_id/items/:item_id', { tag, summary: 'One item', response: itemResponse, errors: [404] }, async (req, { params }) =>
    itemJson(await queues.getItem(req.ctx, params.queue_id, params.item_id)),
  );
  rest.delete(
    '/annotation-queues/:queue_id/items/:item_id',
    { tag, summary: 'Remove an item (its scores stay)', noContent: true, errors: [404] },
    (req, { params }) => queues.deleteItem(req.ctx, params.queue_id, params.item_id),
  );
  rest.post(
    '/annotation-queues/:queue_id/next',
    {
      tag,
      summary: 'Take the next item to annotate, locked to the caller for lock_seconds',
      description: 'The item the caller holds already, else the oldest free item the caller has not annotated; `item` null when none is left.',
      response: nextResponse,
      errors: [403, 404],
    },
    async (req, { params }) => {
      const item = await reviewing.nextItem(req.ctx, params.queue_id);
      return { item: item && itemJson(item) };
    },
  );
  rest.post(
    '/annotation-queues/:queue_id/items/:item_id/release',
    { tag, summary: 'Give back an item the caller holds', response: itemResponse, errors: [403, 404] },
    async (req, { params }) => itemJson(await reviewing.releaseItem(req.ctx, params.queue_id, params.item_id)),
  );
  rest.post(
    '/annotation-queues/:queue_id/items/:item_id/complete',
    {
      tag,
      summary: 'Complete an item: write the caller’s scores and count one annotation',
      description: '409 when the item is done, the caller annotated it already, or another reviewer holds it.',
      body: completeBody,
      response: completionResponse,
      errors: [403, 404, 409],
      examples: { scores: { scores: [{ config_id: '0199…', value: 4, comment: 'close, one date wrong' }] } },
    },
    async (req, { params, body }) => completionJson(await reviewing.completeItem(req.ctx, params.queue_id, params.item_id, body)),
  );
  rest.get(
    '/annotation-queues/:queue_id/progress',
    { tag, summary: 'Progress of the queue and of each reviewer', response: progressResponse, errors: [404] },
    async (req, { params }) => progressJson(await reviewing.progress(req.ctx, params.queue_id)),
  );
  rest.get(
    '/annotation-queues/:queue_id/agreement',
    { tag, summary: 'Agreement per score name over items with several reviewers (Fleiss’ and Cohen’s kappa)', response: agreementResponse, errors: [404] },
    async (req, { params }) => agreementJson(await reviewing.agreement(req.ctx, params.queue_id)),
  );
  rest.post(
    '/annotation-queues/:queue_id/export',
    {
      tag,
      summary: 'Export the reviewed items to a test set (a preview writes nothing)',
      description:
        "Each done item's span (a trace's root span) mapped by JSONPath, each score config a column, and the correction (a TEXT score) as `expected_column`. Rows keep their source trace and span.",
      body: exportBody,
      response: exportResponse,
      errors: [404],
      examples: {
        preview: { testset_id: '0199…', mapping: { question: '$.input.question', answer: '$.output' }, preview: true },
        new_set: { testset_name: 'failures from review', mapping: { question: '$.input.question' }, expected_column: 'correct_answer' },
      },
    },
    async (req, { params, body }) => exportJson(await exportQueue(req.ctx, params.queue_id, body)),
  );
}
