// REST answers of projects and API keys (docs/access.md). A key's secret appears only in the
// answer that creates it.
import { z } from 'zod';
import { scopes } from '../shared/context.js';
import { timestamp } from '../shared/http/openapi.js';

const scope = z.enum(scopes);

export const apiKeyResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(scope),
    prefix: z.string().describe('The first characters of the key, to recognise it'),
    created_at: timestamp(),
    last_used_at: timestamp().nullable().describe('Updated at most once a minute'),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeyResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(scope),
    key: z.string().describe('The secret: shown in this answer only'),
    created_at: timestamp(),
  })
  .meta({ id: 'CreatedApiKey' });

export const projectResponse = z.object({ id: z.string(), name: z.string(), created_at: timestamp() }).meta({ id: 'Project' });

export const createdProjectResponse = projectResponse
  .extend({ api_key: createdApiKeyResponse.pick({ id: true, name: true, scopes: true, key: true }) })
  .meta({ id: 'CreatedProject' });
