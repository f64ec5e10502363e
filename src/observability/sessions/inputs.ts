// The inputs of session reads (GET /sessions, GET /sessions/{session_id}; GraphQL `sessions`,
// `session`), and how REST query strings and GraphQL arguments become one SessionFilter.
import { z } from 'zod';
import { pageLimit } from '../../shared/http/params.js';
import { isoDate } from '../../shared/validation.js';
import type { SessionFilter } from './operations.js';

const cursor = () => z.string().min(1).optional().describe('`next_cursor` of the previous page');

export const sessionListQuery = z.object({
  started_after: isoDate().optional().describe('Sessions with a trace that started at or after this time'),
  started_before: isoDate().optional().describe('Sessions with a trace that started at or before this time'),
  user_id: z.string().min(1).optional().describe('Sessions with a trace of this end user'),
  environment: z.string().min(1).optional().describe('Sessions with a trace in this environment'),
  search: z.string().min(1).optional().describe('Part of the session id, ignoring ASCII case'),
  text: z.string().min(1).optional().describe('Text in the inputs or outputs of any span of the session, ignoring ASCII case'),
  limit: pageLimit(),
  cursor: cursor(),
});

/** `GET /sessions/{session_id}`: a page of its turns. */
export const sessionReadQuery = z.object({ limit: pageLimit(), cursor: cursor() });

/** The filter fields, named as REST and GraphQL name them. */
export interface SessionArgs {
  started_after?: Date | null;
  started_before?: Date | null;
  user_id?: string | null;
  environment?: string | null;
  search?: string | null;
  text?: string | null;
}

export function sessionFilter(args: SessionArgs): SessionFilter {
  return {
    startedAfter: args.started_after ?? undefined,
    startedBefore: args.started_before ?? undefined,
    userId: args.user_id || undefined,
    environment: args.environment || undefined,
    search: args.search || undefined,
    text: args.text || undefined,
  };
}
