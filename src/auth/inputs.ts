// Inputs of projects and API keys (docs/access.md). REST and GraphQL validate with these.
import { z } from 'zod';
import { MAX_RETENTION_DAYS } from '../shared/config.js';
import { scopes } from '../shared/context.js';
import { name } from '../shared/validation.js';
import { pageLimit } from '../shared/http/params.js';
import { auditActions } from './audit.js';

export const scopeList = z
  .array(z.enum(scopes))
  .min(1)
  .transform((list) => scopes.filter((scope) => list.includes(scope)));

export const createProjectInput = z.object({ name: name().max(255) });

/** A project's settings (`PATCH /projects/{project_id}`): an absent field is left as it is. */
export const updateProjectInput = z.object({
  retention_days: z
    .number()
    .int()
    .min(1)
    .max(MAX_RETENTION_DAYS)
    .nullable()
    .optional()
    .describe("Days a trace is kept after its latest span ends (1 to 3650); null: the instance's ASSAY_RETENTION_DAYS, or forever"),
});

export const createApiKeyInput = z.object({ name: name().max(255), scopes: scopeList });

export const auditQuery = z.object({
  action: z.enum(auditActions).optional().describe('Only events of this action'),
  limit: pageLimit(),
  cursor: z.uuid({ error: 'Invalid cursor' }).optional().describe("The previous page's `next_cursor`"),
});
