// REST route of the audit log (docs/access.md#audit): a project's admins read it a page at a time.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { auditQuery } from './inputs.js';
import { listAuditEvents } from './operations.js';
import { auditEventJson, auditPageResponse } from './responses.js';

export function auditRoutes(app: FastifyInstance): void {
  restRoutes(app).get(
    '/projects/:project_id/audit-events',
    {
      tag: 'access',
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
