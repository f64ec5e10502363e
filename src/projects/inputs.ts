// Inputs of projects (docs/access.md#projects-and-keys). REST and GraphQL validate with these.
import { z } from 'zod';
import { MAX_RETENTION_DAYS } from '../shared/config.js';
import { name } from '../shared/validation.js';

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
