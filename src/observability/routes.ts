// REST routes of observability (SPEC §7, seed 4.1 and 4.2): validate, call the operation, answer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseInput } from '../shared/validation.js';
import { legacyTraceInput, spanReadQuery } from './inputs.js';
import { ingestLegacyTrace } from './legacy.js';
import { getSpanJson, getTraceTree } from './read.js';
import { stringifySpanTree, type SpanJson } from './shape.js';

/** Trees are serialised without recursion (see stringifySpanTree). */
function sendTree(reply: FastifyReply, tree: SpanJson) {
  return reply.type('application/json; charset=utf-8').send(stringifySpanTree(tree));
}

export function observabilityRoutes(app: FastifyInstance): void {
  app.post('/observability/trace', async (req) => ingestLegacyTrace(req.ctx, parseInput(legacyTraceInput, req.body, 'body')));

  app.get<{ Params: { trace_id: string } }>('/observability/traces/:trace_id', async (req, reply) =>
    sendTree(reply, await getTraceTree(req.ctx, req.params.trace_id)),
  );

  app.get<{ Params: { span_id: string } }>('/observability/spans/:span_id', async (req, reply) => {
    const query = parseInput(spanReadQuery, req.query, 'query');
    return sendTree(reply, await getSpanJson(req.ctx, req.params.span_id, query.type, query.trace_id));
  });
}
