// Langfuse's sessions on Assay's (docs/langfuse.md#what-is-served): a session is the traces sharing a
// session id (src/observability/sessions), listed a page at a time with Langfuse's `meta`, and
// read with its traces in Langfuse's Trace shape.
import type { RequestContext } from '../shared/context.js';
import * as sessions from '../observability/sessions/operations.js';
import type { SessionsQuery } from './inputs.js';
import { DEFAULT_ENVIRONMENT, LangfuseInvalidRequest, pageOf, type LangfuseSessionJson, type LangfuseTraceJson } from './responses.js';

/** The most traces a session's read answers, as Langfuse's does not page them either. */
const MAX_SESSION_TRACES = 1000;

export function langfuseSessionJson(ctx: RequestContext, session: sessions.SessionRow): LangfuseSessionJson {
  return {
    id: session.sessionId,
    createdAt: session.firstSeen.toISOString(),
    projectId: ctx.projectId,
    environment: session.environment ?? DEFAULT_ENVIRONMENT,
  };
}

/** `GET /api/public/sessions`: the latest active first, as Assay lists them. */
export async function listLangfuseSessions(ctx: RequestContext, query: SessionsQuery) {
  if ((query.environment?.length ?? 0) > 1) {
    throw new LangfuseInvalidRequest([{ path: ['environment'], message: 'Give one environment: Assay filters sessions by one at a time', code: 'custom' }]);
  }
  // A session is listed when one of its traces started in the window (its createdAt is its first's).
  const filter = { startedAfter: query.fromTimestamp, startedBefore: query.toTimestamp, environment: query.environment?.[0] };
  const offset = (query.page - 1) * query.limit;
  const [rows, total] = await Promise.all([sessions.sessionsAt(ctx, filter, offset, query.limit), sessions.countSessions(ctx, filter)]);
  return pageOf(
    rows.map((row) => langfuseSessionJson(ctx, row)),
    query.page,
    query.limit,
    total,
  );
}

/** `GET /api/public/sessions/{sessionId}`: the session and its traces in start order. */
export async function langfuseSessionWithTraces(ctx: RequestContext, session: sessions.SessionRow) {
  const turns = await sessions.sessionTurns(ctx, session.sessionId, { first: MAX_SESSION_TRACES });
  const traces: LangfuseTraceJson[] = turns.edges.map(({ node }) => ({
    id: node.trace.traceId,
    timestamp: node.trace.startTime.toISOString(),
    name: node.trace.name,
    input: node.input,
    output: node.output,
    sessionId: node.trace.sessionId,
    release: null,
    version: null,
    userId: node.trace.userId,
    metadata: null,
    tags: [],
    public: false,
    environment: node.trace.environment ?? DEFAULT_ENVIRONMENT,
  }));
  return { ...langfuseSessionJson(ctx, session), traces };
}
