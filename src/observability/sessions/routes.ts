// REST reads of sessions (docs/sessions.md): the list with its filters, newest activity first, and
// one session with its conversation a page of turns at a time.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { sessionFilter, sessionListQuery, sessionReadQuery } from './inputs.js';
import { getSession, listSessions, sessionTurns } from './operations.js';
import { sessionDetailResponse, sessionJson, sessionListResponse, turnJson } from './responses.js';

const tag = 'observability';

export function sessionRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.get(
    '/sessions',
    {
      tag,
      summary: 'Find sessions: traces that share a session id',
      description: 'Filters combine (AND); a session matches when one of its traces does. The session whose latest trace started last comes first.',
      query: sessionListQuery,
      response: sessionListResponse,
    },
    async (req, { query }) => {
      const page = await listSessions(req.ctx, sessionFilter(query), { first: query.limit, after: query.cursor });
      return { sessions: page.edges.map((edge) => sessionJson(edge.node)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
    },
  );
  rest.get(
    '/sessions/:session_id',
    {
      tag,
      summary: 'A session: its figures and its traces in start order as the turns of a conversation',
      query: sessionReadQuery,
      response: sessionDetailResponse,
      errors: [404],
    },
    async (req, { params, query }) => {
      const session = await getSession(req.ctx, params.session_id);
      const turns = await sessionTurns(req.ctx, session.sessionId, { first: query.limit, after: query.cursor });
      return {
        ...sessionJson(session),
        turns: turns.edges.map((edge) => turnJson(edge.node)),
        next_cursor: turns.pageInfo.hasNextPage ? turns.pageInfo.endCursor : null,
      };
    },
  );
}
