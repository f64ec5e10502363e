// REST routes of deletion (docs/observability.md#deleting): a trace, or every span of a user.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { deleteTrace, deleteUserSpans } from './deletion.js';
import { deletedSpansResponse } from './responses.js';

const tag = 'observability';

export function deletionRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.delete(
    '/observability/traces/:trace_id',
    { tag, summary: 'Delete a trace: every span and its summary', noContent: true, errors: [404] },
    async (req, { params }) => {
      await deleteTrace(req.ctx, params.trace_id);
    },
  );

  rest.delete(
    '/observability/users/:user_id',
    {
      tag,
      summary: 'Delete every span of a user (a privacy request): traces left empty go, the others are summed again',
      description: 'Answers what was deleted; 404 when the project holds no span of that user.',
      response: deletedSpansResponse,
      errors: [404],
    },
    (req, { params }) => deleteUserSpans(req.ctx, params.user_id),
  );
}
