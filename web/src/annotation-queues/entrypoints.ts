// The annotation queue screens' entry points (docs/ui.md#routes-and-preloading): the list with its
// progress, and one queue's review screen.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import AnnotationQueuesQueryNode, { type AnnotationQueuesQuery } from '../__generated__/AnnotationQueuesQuery.graphql.ts';
import ReviewScreenQueryNode, { type ReviewScreenQuery } from '../__generated__/ReviewScreenQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type QueueListQueries = { list: PreloadedQuery<AnnotationQueuesQuery> };
export type ReviewScreenQueries = { queue: PreloadedQuery<ReviewScreenQuery> };

export const queueList = entryPoint(
  async () => (await import('./Queues.tsx')).QueueList,
  // Progress changes with every completion anywhere: always the server's.
  (environment): QueueListQueries => ({ list: loadQuery<AnnotationQueuesQuery>(environment, AnnotationQueuesQueryNode, {}, { fetchPolicy: 'network-only' }) }),
);

export const queueReview = entryPoint(
  async () => (await import('./ReviewScreen.tsx')).ReviewScreen,
  (environment, { queueId }): ReviewScreenQueries => ({
    queue: loadQuery<ReviewScreenQuery>(environment, ReviewScreenQueryNode, { id: globalIdOf('AnnotationQueue', queueId) }, { fetchPolicy: 'network-only' }),
  }),
);
