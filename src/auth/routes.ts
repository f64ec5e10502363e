// REST routes of access (docs/access.md#projects-and-keys): the caller's projects here, and the
// routes of keys, the audit log and users from their folders. Each needs the admin scope but
// GET /projects, which lists the caller's own projects, and the routes of signing in.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createProjectInput, updateProjectInput } from '../projects/inputs.js';
import { projectJson, projectResponse } from '../projects/responses.js';
import { restRoutes } from '../shared/http/route.js';
import { auditRoutes } from './audit/routes.js';
import { apiKeyRoutes } from './keys/routes.js';
import { createdKeyJson } from './keys/responses.js';
import { callerProjects, createProjectWithKey, updateProject } from './projects.js';
import { createdProjectResponse } from './responses.js';
import { userRoutes } from './users/routes.js';

const tag = 'access';

export function authRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/projects',
    {
      tag,
      scope: 'admin',
      summary: 'Create a project, with a first API key holding every scope',
      instanceWide: true,
      description: 'The key (`api_key.key`) is shown in this answer only.',
      body: createProjectInput,
      response: createdProjectResponse,
      errors: [409],
      examples: { team: { name: 'support-bot' } },
    },
    async (req, { body }) => {
      const { project, apiKey, key } = await createProjectWithKey(req.ctx, body);
      const { created_at: _created, ...created } = createdKeyJson({ row: apiKey, key });
      return { ...projectJson(project), api_key: created };
    },
  );
  rest.get('/projects', { tag, summary: "The caller's projects", instanceWide: true, response: z.array(projectResponse) }, async (req) =>
    (await callerProjects(req.ctx)).map(projectJson),
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
    async (req, { params, body }) => projectJson(await updateProject(req.ctx, params.project_id, body)),
  );
  apiKeyRoutes(app);
  auditRoutes(app);
  userRoutes(app);
}
