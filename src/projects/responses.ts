// REST answers of projects (docs/access.md#projects-and-keys): the schema and the function that
// shapes a row into it, for the project routes and a user's memberships alike.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import type { ProjectRow } from './operations.js';

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

export function projectJson(project: ProjectRow) {
  return { id: project.id, name: project.name, created_at: project.createdAt, retention_days: project.retentionDays };
}
