// REST answers of projects and API keys (docs/access.md). A key's secret appears only in the
// answer that creates it.
import { z } from 'zod';
import { scopes } from '../shared/context.js';
import { auditActions } from './audit.js';
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

export const projectResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: timestamp(),
    retention_days: z
      .number()
      .int()
      .nullable()
      .describe("Days a trace is kept after its latest span ends; null: the instance's ASSAY_RETENTION_DAYS, or forever (docs/observability.md#retention)"),
  })
  .meta({ id: 'Project' });

export const createdProjectResponse = projectResponse
  .extend({ api_key: createdApiKeyResponse.pick({ id: true, name: true, scopes: true, key: true }) })
  .meta({ id: 'CreatedProject' });

export const auditEventResponse = z
  .object({
    id: z.string(),
    action: z.enum(auditActions),
    project_id: z.string().nullable().describe("Null for the instance's events (logins, users)"),
    actor: z
      .object({
        type: z.enum(['api_key', 'user', 'system']),
        id: z.string().nullable(),
        label: z.string().nullable().describe("What identified the actor when it acted: a key's name and prefix, a user's email"),
      })
      .describe('Who acted'),
    target: z.object({ type: z.string(), id: z.string() }).nullable().describe('What was acted on'),
    details: z.record(z.string(), z.unknown()).nullable(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    created_at: timestamp(),
  })
  .meta({ id: 'AuditEvent' });

export const auditPageResponse = z
  .object({ events: z.array(auditEventResponse).describe('Newest first'), next_cursor: z.string().nullable() })
  .meta({ id: 'AuditEventPage' });
