// The observability screens' entry points (docs/ui.md#routes-and-preloading): the trace list with
// its filters from the URL, a trace with the span the URL selects, the session list with its
// filters from the URL, and a session with its first turns.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import SessionListQueryNode, { type SessionListQuery } from '../__generated__/SessionListQuery.graphql.ts';
import SessionPageQueryNode, { type SessionPageQuery } from '../__generated__/SessionPageQuery.graphql.ts';
import SpanDetailsQueryNode, { type SpanDetailsQuery } from '../__generated__/SpanDetailsQuery.graphql.ts';
import TraceListQueryNode, { type TraceListQuery } from '../__generated__/TraceListQuery.graphql.ts';
import TracePageQueryNode, { type TracePageQuery } from '../__generated__/TracePageQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { listVariables, parseState } from './filters.ts';
import { parseSessionState, sessionListVariables } from './sessionFilters.ts';

export interface TraceListQueries {
  [name: string]: PreloadedQuery<TraceListQuery>;
  list: PreloadedQuery<TraceListQuery>;
}

export interface TracePageQueries {
  [name: string]: PreloadedQuery<TracePageQuery> | PreloadedQuery<SpanDetailsQuery> | null;
  trace: PreloadedQuery<TracePageQuery>;
  /** The selected span's details; null when none is selected. */
  span: PreloadedQuery<SpanDetailsQuery> | null;
}

export const traceList = entryPoint(
  async () => (await import('./TraceList.tsx')).TraceList,
  (environment, _route, search): TraceListQueries => ({
    list: loadQuery<TraceListQuery>(environment, TraceListQueryNode, listVariables(parseState(search), Date.now())),
  }),
);

export const tracePage = entryPoint(
  async () => (await import('./TracePage.tsx')).TracePage,
  (environment, { traceId, spanId }): TracePageQueries => ({
    // Selecting another span keeps the trace: read again from the store, not the network.
    trace: loadQuery<TracePageQuery>(environment, TracePageQueryNode, { traceId }),
    span: spanId ? loadQuery<SpanDetailsQuery>(environment, SpanDetailsQueryNode, { traceId, spanId }) : null,
  }),
);

export interface SessionListQueries {
  [name: string]: PreloadedQuery<SessionListQuery>;
  list: PreloadedQuery<SessionListQuery>;
}

export interface SessionPageQueries {
  [name: string]: PreloadedQuery<SessionPageQuery>;
  session: PreloadedQuery<SessionPageQuery>;
}

export const sessionList = entryPoint(
  async () => (await import('./SessionList.tsx')).SessionList,
  (environment, _route, search): SessionListQueries => ({
    list: loadQuery<SessionListQuery>(environment, SessionListQueryNode, sessionListVariables(parseSessionState(search), Date.now())),
  }),
);

export const sessionPage = entryPoint(
  async () => (await import('./SessionPage.tsx')).SessionPage,
  (environment, { sessionId }): SessionPageQueries => ({
    // A session grows while its conversation goes on: the store's copy shows at once, the API's replaces it.
    session: loadQuery<SessionPageQuery>(environment, SessionPageQueryNode, { sessionId }, { fetchPolicy: 'store-and-network' }),
  }),
);
