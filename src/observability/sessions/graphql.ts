// GraphQL of sessions (docs/sessions.md): the Session node, the `sessions` connection with its
// filters and `session`, each session's conversation as `turns` over the Trace type of
// traces/graphql.ts.
import { ScoreRef } from '../../scores/graphql.js';
import { builder } from '../../shared/graphql/builder.js';
import { restFields } from '../../shared/graphql/names.js';
import { TokenUsage, TraceRef } from '../traces/graphql.js';
import { spanUsage } from '../traces/responses.js';
import { sessionFilter } from './inputs.js';
import * as sessions from './operations.js';

const SessionTurn = builder.objectRef<sessions.SessionTurn>('SessionTurn').implement({
  description: 'One turn of a conversation: a trace of the session, with what its root span took in and gave out.',
  fields: (t) => ({
    trace: t.field({ type: TraceRef, description: 'The trace of this turn.', resolve: (turn) => turn.trace }),
    input: t.expose('input', { type: 'JSON', nullable: true, description: "The root span's inputs; null when none were reported." }),
    output: t.expose('output', { type: 'JSON', nullable: true, description: "The root span's outputs; null when none were reported." }),
  }),
});

const SessionTurnConnection = builder.connectionObject(
  { type: SessionTurn, name: 'SessionTurnConnection', description: 'The turns of a session, a page at a time.' },
  { description: 'A turn and its cursor.' },
);

export const Session = builder.node(builder.objectRef<sessions.SessionRow>('Session'), {
  description:
    'The traces of the project that share a session id (a conversation, a user visit), with figures over all of them (REST: `GET /sessions/{session_id}`). Derived from its traces: it goes when they go.',
  id: { resolve: (session) => session.sessionId },
  loadMany: (ids, ctx) => sessions.getSessions(ctx, ids),
  fields: (t) => ({
    sessionId: t.exposeString('sessionId', { description: 'The session id the client sent.' }),
    firstSeen: t.expose('firstSeen', { type: 'DateTime', description: 'When its first trace started.' }),
    lastSeen: t.expose('lastSeen', { type: 'DateTime', description: 'When its latest trace started.' }),
    traceCount: t.exposeInt('traceCount', { description: 'Its traces.' }),
    errorCount: t.exposeInt('errorCount', { description: 'Failed spans over all its traces.' }),
    failedTraceCount: t.exposeInt('failedTraceCount', { description: 'Its traces with a failed span.' }),
    tokens: t.field({ type: TokenUsage, description: 'Sums over all its traces.', resolve: spanUsage }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD over all its traces; null when none has a cost.' }),
    userId: t.exposeString('userId', { nullable: true, description: "Its first trace's end-user id." }),
    environment: t.exposeString('environment', { nullable: true, description: "Its first trace's deployment environment." }),
    firstTraceId: t.exposeString('firstTraceId', { description: 'The trace id of its first trace.' }),
    lastTraceId: t.exposeString('lastTraceId', { description: 'The trace id of its latest trace.' }),
    firstInput: t.expose('firstInput', { type: 'JSON', nullable: true, description: "The first trace's input (its root span's inputs)." }),
    lastOutput: t.expose('lastOutput', { type: 'JSON', nullable: true, description: "The latest trace's output (its root span's outputs)." }),
    scores: t.field({
      type: [ScoreRef],
      description: 'The scores of the session itself (target SESSION), oldest first; they may have come before its traces (docs/scores.md).',
      resolve: (session) => session.scores,
    }),
    turns: t.connection(
      {
        type: SessionTurn,
        description: 'Its traces in start order, the turns of the conversation.',
        resolve: (session, args, ctx) => sessions.sessionTurns(ctx, session.sessionId, args),
      },
      SessionTurnConnection,
    ),
  }),
});

const SessionConnection = builder.connectionObject(
  { type: Session, name: 'SessionConnection', description: 'Sessions, a page at a time.' },
  { description: 'A session and its cursor.' },
);

builder.queryFields((t) => ({
  sessions: t.connection(
    {
      type: Session,
      description: 'Sessions matching every filter given (a session matches when one of its traces does), the one whose latest trace started last first.',
      args: {
        startedAfter: t.arg({ type: 'DateTime', description: 'Sessions with a trace that started at or after this time.' }),
        startedBefore: t.arg({ type: 'DateTime', description: 'Sessions with a trace that started at or before this time.' }),
        userId: t.arg.string({ description: 'Sessions with a trace of this end user.' }),
        environment: t.arg.string({ description: 'Sessions with a trace in this deployment environment.' }),
        search: t.arg.string({ description: 'Part of the session id, ignoring ASCII case.' }),
        text: t.arg.string({ description: 'Text in the inputs or outputs of any span of the session, ignoring ASCII case.' }),
      },
      resolve: (_root, args, ctx) => sessions.listSessions(ctx, sessionFilter(restFields(args)), args),
    },
    SessionConnection,
  ),
  session: t.field({
    type: Session,
    nullable: true,
    description: 'A session by the id the client sent; null when no trace of the project has it.',
    args: { sessionId: t.arg.string({ required: true, description: 'The session id the client sent.' }) },
    resolve: async (_root, args, ctx) => (await sessions.getSessions(ctx, [args.sessionId]))[0],
  }),
}));
