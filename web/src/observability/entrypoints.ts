// The observability screens' entry points (docs/ui.md#routes-and-preloading): the trace list with
// its filters from the URL, and a trace with the span the URL selects.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import SpanDetailsQueryNode, { type SpanDetailsQuery } from '../__generated__/SpanDetailsQuery.graphql.ts';
import TraceListQueryNode, { type TraceListQuery } from '../__generated__/TraceListQuery.graphql.ts';
import TracePageQueryNode, { type TracePageQuery } from '../__generated__/TracePageQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { listVariables, parseState } from './filters.ts';

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
