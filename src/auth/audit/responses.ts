// REST answers of the audit log (docs/access.md#audit): the schemas and the function that shapes
// an event's row into them.
import { z } from 'zod';
import { timestamp } from '../../shared/http/openapi.js';
import { auditActions, auditDetails, type AuditEventRow } from './operations.js';

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

export function auditEventJson(row: AuditEventRow) {
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
