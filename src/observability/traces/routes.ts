// REST reads of traces and spans (docs/observability.md#rest-reads, docs/contract.md 4.1 and 4.2).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { spanReadQuery } from './inputs.js';
import { spanResponse } from './responses.js';
import { getSpanJsonText, getTraceTreeText } from './trace-reads.js';

/** Span trees come as JSON text, written without recursion (trace-reads.ts getTraceTreeText, getSpanJsonText). */
function sendJsonText(reply: FastifyReply, text: string) {
  return reply.type('application/json; charset=utf-8').send(text);
}

const tag = 'observability';

export function traceRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.get(
    '/observability/traces/:trace_id',
    { tag, summary: 'A trace: its earliest top-level span with every descendant in `children`', response: spanResponse, errors: [404] },
    async (req, { params }, reply) => sendJsonText(reply, await getTraceTreeText(req.ctx, params.trace_id)),
  );

  rest.get(
    '/observability/spans/:span_id',
    {
      tag,
      summary: 'A span: with its subtree (`type=generation`) or alone (`type=span`)',
      query: spanReadQuery,
      response: spanResponse,
      errors: [404],
    },
    async (req, { params, query }, reply) => sendJsonText(reply, await getSpanJsonText(req.ctx, params.span_id, query.type, query.trace_id)),
  );
}
