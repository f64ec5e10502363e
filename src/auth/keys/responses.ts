// REST answers of API keys (docs/access.md#projects-and-keys) and the functions that shape a key's
// row into them. A key's secret appears only in the answer that creates it.
import { z } from 'zod';
import { scopes } from '../../shared/context.js';
import { timestamp } from '../../shared/http/openapi.js';
import { scopesOf, type ApiKeyRow } from './operations.js';

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

export function apiKeyJson(row: ApiKeyRow) {
  return { id: row.id, name: row.name, scopes: scopesOf(row), prefix: row.prefix, created_at: row.createdAt, last_used_at: row.lastUsedAt };
}

export function createdKeyJson({ row, key }: { row: ApiKeyRow; key: string }) {
  return { id: row.id, name: row.name, scopes: scopesOf(row), key, created_at: row.createdAt };
}
