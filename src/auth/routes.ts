// REST routes of projects and API keys (docs/access.md#projects-and-keys). Each needs the admin
// scope but GET /projects, which lists the caller's own projects.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import { auditDetails, listAuditEvents, type AuditEventRow } from './audit.js';
import { auditQuery, createApiKeyInput, createProjectInput, updateProjectInput } from './inputs.js';
import * as keys from './operations.js';
import { apiKeyResponse, auditPageResponse, createdApiKeyResponse, createdProjectResponse, projectResponse } from './responses.js';

type ProjectRow = Awaited<ReturnType<typeof keys.callerProjects>>[number];

function projectJson(project: ProjectRow) {
  return { id: project.id, name: project.name, created_at: project.createdAt, retention_days: project.retentionDays };
}

function apiKeyJson(row: keys.ApiKeyRow) {
  return { id: row.id, name: row.name, scopes: keys.scopesOf(row), prefix: row.prefix, created_at: row.createdAt, last_used_at: row.lastUsedAt };
}

function createdKeyJson({ row, key }: { row: keys.ApiKeyRow; key: string }) {
  return { id: row.id, name: row.name, scopes: keys.scopesOf(row), key, created_at: row.createdAt };
}

function auditEventJson(row: AuditEventRow) {
  return {
    id: row.id,
    action: row.action,
    project_id: row.projectId,
    actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
    target: row.targetType === null || row.targetId === null ? null : { type: row.targetType, id: row.targetId },
    details: auditDetails(row),
    ip: row.ip,
    user_agent: row.userAgent,
    created_at: row.createdAt,
  };
}

const tag = 'access';

export function authRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/projects',
    {
      tag,
      scope: 'admin',
      summary: 'Create a project, with a first API key holding every scope',
      description: 'The key (`api_key.key`) is shown in this answer only.',
      body: createProjectInput,
      response: createdProjectResponse,
      errors: [409],
      examples: { team: { name: 'support-bot' } },
    },
    async (req, { body }) => {
      const { project, apiKey, key } = await keys.createProjectWithKey(req.ctx, body);
      const { created_at: _created, ...created } = createdKeyJson({ row: apiKey, key });
      return { ...projectJson(project), api_key: created };
    },
  );
  rest.get('/projects', { tag, summary: "The caller's projects", response: z.array(projectResponse) }, async (req) =>
    (await keys.callerProjects(req.ctx)).map(projectJson),
  );
  rest.patch(
    '/projects/:project_id',
    {
      tag,
      scope: 'admin',
      summary: "Change a project's settings",
      description:
        'Only the fields sent change. `retention_days`: traces whose latest span ended longer ago are deleted in the background (docs/observability.md#retention).',
      body: updateProjectInput,
      response: projectResponse,
      errors: [404],
      examples: { month: { retention_days: 30 }, forever: { retention_days: null } },
    },
    async (req, { params, body }) => projectJson(await keys.updateProject(req.ctx, params.project_id, body)),
  );
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
  rest.get(
    '/projects/:project_id/audit-events',
    {
      tag,
      scope: 'admin',
      summary: "A project's audit log, newest first",
      description: "Keys created and revoked, members and roles changed, and its members' logins (docs/access.md#audit).",
      query: auditQuery,
      response: auditPageResponse,
      errors: [404],
    },
    async (req, { params, query }) => {
      // One more than a page tells whether another follows.
      const rows = await listAuditEvents(req.ctx, params.project_id, { action: query.action }, { after: query.cursor, limit: query.limit + 1 });
      const page = rows.slice(0, query.limit);
      return { events: page.map(auditEventJson), next_cursor: rows.length > query.limit ? page.at(-1)!.id : null };
    },
  );
}
