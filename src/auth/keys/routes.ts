// REST routes of API keys (docs/access.md#projects-and-keys): each needs the admin scope.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../../shared/http/route.js';
import { createApiKeyInput } from './inputs.js';
import * as keys from './operations.js';
import { apiKeyJson, apiKeyResponse, createdApiKeyResponse, createdKeyJson } from './responses.js';

const tag = 'access';

export function apiKeyRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/projects/:project_id/api-keys',
    {
      tag,
      scope: 'admin',
      summary: 'Create an API key',
      description: 'The key (`key`) is shown in this answer only; lists show its `prefix`.',
      body: createApiKeyInput,
      response: createdApiKeyResponse,
      errors: [404],
      examples: { exporter: { name: 'otel-collector', scopes: ['ingest'] } },
    },
    async (req, { params, body }) => createdKeyJson(await keys.createApiKey(req.ctx, params.project_id, body)),
  );
  rest.get(
    '/projects/:project_id/api-keys',
    { tag, scope: 'admin', summary: "A project's API keys, without their secret", response: z.array(apiKeyResponse), errors: [404] },
    async (req, { params }) => (await keys.listApiKeys(req.ctx, params.project_id)).map(apiKeyJson),
  );
  rest.delete(
    '/api-keys/:api_key_id',
    { tag, scope: 'admin', summary: 'Revoke an API key: the next request presenting it is refused', noContent: true, errors: [404] },
    (req, { params }) => keys.revokeApiKey(req.ctx, params.api_key_id),
  );
}
