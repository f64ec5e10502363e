// GraphQL of deletion (docs/observability.md#deleting): `deleteTrace` and `deleteUserSpans`.
import { builder } from '../../shared/graphql/builder.js';
import { deleteTrace, deleteUserSpans, type DeletedSpans as DeletedSpansRow } from './deletion.js';

const DeletedSpans = builder.objectRef<DeletedSpansRow>('DeletedSpans').implement({
  description: 'What a deletion took away (docs/observability.md#deleting).',
  fields: (t) => ({
    spans: t.exposeInt('spans', { description: 'Spans deleted.' }),
    traces: t.exposeInt('traces', { description: 'Traces deleted, having no span left.' }),
  }),
});

builder.mutationFields((t) => ({
  deleteTrace: t.field({
    type: DeletedSpans,
    description: 'Deletes a trace, every span and its summary, by the trace id the client sent; NOT_FOUND when there is none.',
    args: { traceId: t.arg.string({ required: true, description: 'The trace id the client sent.' }) },
    resolve: (_root, args, ctx) => deleteTrace(ctx, args.traceId),
  }),
  deleteUserSpans: t.field({
    type: DeletedSpans,
    description: 'Deletes every span a user sent (a privacy request): traces left empty go, the others are summed again; NOT_FOUND when there is none.',
    args: { userId: t.arg.string({ required: true, description: 'The `user_id` the spans carry.' }) },
    resolve: (_root, args, ctx) => deleteUserSpans(ctx, args.userId),
  }),
}));
