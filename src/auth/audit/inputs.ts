// Inputs of the audit log (docs/access.md#audit). REST validates with these.
import { z } from 'zod';
import { pageLimit } from '../../shared/http/params.js';
import { auditActions } from './operations.js';

export const auditQuery = z.object({
  action: z.enum(auditActions).optional().describe('Only events of this action'),
  limit: pageLimit(),
  cursor: z.uuid({ error: 'Invalid cursor' }).optional().describe("The previous page's `next_cursor`"),
});
