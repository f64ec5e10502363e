// A session (docs/sessions.md#in-the-ui): its figures and scores, then its traces in start order as
// the turns of a conversation, each turn's input, output and scores with a link to its trace, more
// turns on demand.
import { graphql, useFragment, usePaginationFragment, usePreloadedQuery } from 'react-relay';
import type { SessionPageHead_session$key } from '../__generated__/SessionPageHead_session.graphql.ts';
import type { SessionPageQuery } from '../__generated__/SessionPageQuery.graphql.ts';
import type { SessionPageTurn_turn$key } from '../__generated__/SessionPageTurn_turn.graphql.ts';
import type { SessionPageTurnsPaginationQuery } from '../__generated__/SessionPageTurnsPaginationQuery.graphql.ts';
import type { SessionPageTurns_session$key } from '../__generated__/SessionPageTurns_session.graphql.ts';
import { Empty, Figures } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCost, formatCount, formatDuration, formatTime } from '../format.ts';
import { Link, paths, type RouteOf } from '../router.tsx';
import { ContentView } from './content.tsx';
import { soleText } from './messages.ts';
import type { SessionPageQueries } from './entrypoints.ts';
import { scoreValue, SessionScores } from './SessionScores.tsx';
import { AddToTestsetPanel } from '../testsets/AddToTestsetPanel.tsx';

/** Turns asked for at a time. */
export const TURNS_PAGE = 20;

const query = graphql`
  query SessionPageQuery($sessionId: String!) {
    session(sessionId: $sessionId) {
      sessionId
      ...SessionPageHead_session
      ...SessionScores_session
      ...SessionPageTurns_session
    }
  }
`;

// The session's figures above its conversation.
const headFragment = graphql`
  fragment SessionPageHead_session on Session {
    sessionId
    firstSeen
    lastSeen
    traceCount
    failedTraceCount
    cost
    userId
    environment
    tokens {
      totalTokens
    }
  }
`;

const turnsFragment = graphql`
  fragment SessionPageTurns_session on Session
  @refetchable(queryName: "SessionPageTurnsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 20 }, cursor: { type: "String" }) {
    turns(first: $count, after: $cursor) @connection(key: "SessionPageTurns_turns") {
      edges {
        node {
          trace {
            id
          }
          ...SessionPageTurn_turn
        }
      }
    }
  }
`;

const turnFragment = graphql`
  fragment SessionPageTurn_turn on SessionTurn {
    input
    output
    trace {
      traceId
      name
      status
      startTime
      latency
      cost
      tokens {
        totalTokens
      }
      scores {
        id
        name
        dataType
        value
        stringValue
      }
    }
  }
`;

function SessionHead({ session: sessionRef }: { session: SessionPageHead_session$key }) {
  const session = useFragment(headFragment, sessionRef);
  const figures: [string, string][] = [
    ['First seen', formatTime(session.firstSeen)],
    ['Last seen', formatTime(session.lastSeen)],
    ['Traces', formatCount(session.traceCount)],
    ['Failed', formatCount(session.failedTraceCount)],
    ['Tokens', formatCount(session.tokens.totalTokens)],
    ['Cost', formatCost(session.cost)],
    ...(session.environment ? ([['Environment', session.environment]] as [string, string][]) : []),
    ...(session.userId ? ([['User', session.userId]] as [string, string][]) : []),
  ];
  return (
    <>
      <h1>Session {session.sessionId}</h1>
      <Figures figures={figures} />
    </>
  );
}

function Turn({ projectId, number, turn: turnRef }: { projectId: string; number: number; turn: SessionPageTurn_turn$key }) {
  const { input, output, trace } = useFragment(turnFragment, turnRef);
  return (
    <li className={`turn${trace.status === 'ERROR' ? ' failed' : ''}`} aria-label={`Turn ${number}`}>
      <div className="turn-head">
        <span className="turn-number">Turn {number}</span>
        <Link to={paths.trace(projectId, trace.traceId)}>{trace.name ?? trace.traceId}</Link>
        {trace.status === 'ERROR' && <span className="badge error">failed</span>}
        <span className="muted small">
          {formatTime(trace.startTime)} · {formatDuration(trace.latency)} · {formatCount(trace.tokens.totalTokens)} tokens · {formatCost(trace.cost)}
        </span>
        {trace.scores.map((score) => (
          <span key={score.id} className="badge">
            {score.name}: {scoreValue(score)}
          </span>
        ))}
      </div>
      <div className="turn-body">
        <section aria-label="Input">
          <h3>Input</h3>
          <ContentView value={soleText(input)} />
        </section>
        <section aria-label="Output">
          <h3>Output</h3>
          <ContentView value={soleText(output)} />
        </section>
      </div>
    </li>
  );
}

function Conversation({ projectId, session: sessionRef }: { projectId: string; session: SessionPageTurns_session$key }) {
  const { data, hasNext, isLoadingNext, loadNext } = usePaginationFragment<SessionPageTurnsPaginationQuery, SessionPageTurns_session$key>(
    turnsFragment,
    sessionRef,
  );
  return (
    <section aria-label="Conversation">
      <h2>Conversation</h2>
      <ol className="turns">
        {data.turns.edges.map(({ node }, i) => (
          <Turn key={node.trace.id} projectId={projectId} number={i + 1} turn={node} />
        ))}
      </ol>
      {hasNext && (
        <button type="button" disabled={isLoadingNext} onClick={() => loadNext(TURNS_PAGE)}>
          {isLoadingNext ? 'Loading…' : 'Show more turns'}
        </button>
      )}
    </section>
  );
}

export function SessionPage({ route: { projectId, sessionId }, queries }: ScreenProps<RouteOf<'session'>, SessionPageQueries>) {
  const { session } = usePreloadedQuery<SessionPageQuery>(query, queries.session);
  if (!session) {
    return (
      <Empty title="No such session">
        <p>
          No trace of this project has the session <code>{sessionId}</code>. <Link to={paths.sessions(projectId)}>Back to the sessions</Link>
        </p>
      </Empty>
    );
  }
  return (
    <div className="session-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={paths.sessions(projectId)}>Sessions</Link> / <span aria-current="page">{session.sessionId}</span>
      </nav>
      <SessionHead session={session} />
      <SessionScores session={session} />
      <AddToTestsetPanel projectId={projectId} selection={{ sessionIds: [session.sessionId] }} label="Add the session's traces to a test set" />
      <Conversation projectId={projectId} session={session} />
    </div>
  );
}
