// REST route of the legacy JSON ingest (docs/observability.md#legacy-ingest-post-observabilitytrace).
// OTLP over HTTP has a Fastify scope of its own (otlp/http-receiver.ts).
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { legacyTraceInput } from './inputs.js';
import { countRejectedLegacy, ingestLegacyTrace } from './legacy-trace.js';
import { legacyIngestResponse } from './responses.js';

const tag = 'observability';

export function ingestionRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/observability/trace',
    {
      tag,
      summary: 'Store spans of a trace (JSON; OTLP is at /v1/traces)',
      scope: 'ingest',
      description: 'Spans may arrive before their parents, in any number of requests; a span sent again replaces the stored one.',
      body: legacyTraceInput,
      response: legacyIngestResponse,
      examples: {
        agent: {
          trace: '4bf92f3577b34da6a3ce929d0e0e4736',
          spans: [
            { id: '00f067aa0ba902b7', name: 'agent', spankind: 'AGENT', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:02Z' },
            {
              id: '00f067aa0ba902b8',
              parent_span_id: '00f067aa0ba902b7',
              name: 'llm',
              spankind: 'LLM',
              start_time: '2026-11-22T10:00:00.5Z',
              end_time: '2026-11-22T10:00:01.5Z',
              tokens: { prompt_tokens: 12, completion_tokens: 3 },
              cost: 0.0001,
            },
          ],
        },
      },
    },
    async (req, { body }) => ingestLegacyTrace(req.ctx, body),
    { onInvalid: (req) => countRejectedLegacy(req.ctx, req.body) },
  );
}
