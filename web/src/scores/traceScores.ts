// What the trace and session pages read and write of scores (docs/ui.md#scores): the project's
// active score configs (every page, connections.ts), every score of the trace and its spans, or of
// the session (one refetchable fragment each, read anew after each change, so the panels, the
// span tree and the session's table show the same), and the writes as annotations.
import { startTransition, useCallback, useMemo } from 'react';
import { graphql, readInlineData, useRefetchableFragment, type RefetchFn } from 'react-relay';
import type { OperationType } from 'relay-runtime';
import type { ScoreConfigChoices_query$key } from '../__generated__/ScoreConfigChoices_query.graphql.ts';
import type { ScoreConfigChoicesPaginationQuery } from '../__generated__/ScoreConfigChoicesPaginationQuery.graphql.ts';
import type { SessionScorePanel_session$key } from '../__generated__/SessionScorePanel_session.graphql.ts';
import type { SessionScorePanelRefetchQuery } from '../__generated__/SessionScorePanelRefetchQuery.graphql.ts';
import type { traceScores_scoreConfig$key } from '../__generated__/traceScores_scoreConfig.graphql.ts';
import type { TraceScores_trace$key } from '../__generated__/TraceScores_trace.graphql.ts';
import type { TraceScoresDeleteMutation } from '../__generated__/TraceScoresDeleteMutation.graphql.ts';
import type { TraceScoresRefetchQuery } from '../__generated__/TraceScoresRefetchQuery.graphql.ts';
import type { ScoreDataType, TraceScoresUpsertMutation } from '../__generated__/TraceScoresUpsertMutation.graphql.ts';
import { useCommit } from '../components/actions.tsx';
import { useWholeConnection } from '../connections.ts';
import type { PanelConfig, PanelScore, ScoreWrite } from './panel.ts';

const configsFragment = graphql`
  fragment ScoreConfigChoices_query on Query
  @refetchable(queryName: "ScoreConfigChoicesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    scoreConfigs(first: $count, after: $cursor, isArchived: false) @connection(key: "ScoreConfigChoices_scoreConfigs") {
      edges {
        node {
          ...traceScores_scoreConfig
        }
      }
    }
  }
`;

// What a panel's row and the configs' screen read of a config: one inline fragment, read where each builds its rows.
const configFragment = graphql`
  fragment traceScores_scoreConfig on ScoreConfig @inline {
    id
    name
    dataType
    minValue
    maxValue
    categories {
      label
      value
    }
    description
  }
`;

/** A score config as plain data. */
export function readScoreConfig(config: traceScores_scoreConfig$key): PanelConfig {
  const data = readInlineData(configFragment, config);
  return { ...data, categories: data.categories ?? [] };
}

const scoresFragment = graphql`
  fragment TraceScores_trace on Trace @refetchable(queryName: "TraceScoresRefetchQuery") {
    scores(includeSpans: true) {
      id
      databaseId
      target
      spanId
      name
      dataType
      value
      stringValue
      comment
      source
      metadata
      config {
        id
      }
    }
  }
`;

const sessionScoresFragment = graphql`
  fragment SessionScorePanel_session on Session @refetchable(queryName: "SessionScorePanelRefetchQuery") {
    scores {
      id
      databaseId
      name
      dataType
      value
      stringValue
      comment
      source
      metadata
      config {
        id
      }
    }
  }
`;

const upsertMutation = graphql`
  mutation TraceScoresUpsertMutation($input: [ScoreInput!]!) {
    upsertScores(input: $input) {
      id
    }
  }
`;

const deleteMutation = graphql`
  mutation TraceScoresDeleteMutation($id: ID!) {
    deleteScore(id: $id)
  }
`;

/** The project's score configs that take scores, as the panels build their rows. */
export function useScoreConfigs(query: ScoreConfigChoices_query$key): PanelConfig[] {
  const { data } = useWholeConnection<ScoreConfigChoicesPaginationQuery, ScoreConfigChoices_query$key>(configsFragment, query);
  return useMemo(() => data.scoreConfigs.edges.map(({ node }) => readScoreConfig(node)), [data.scoreConfigs.edges]);
}

/** A score of the trace, as a panel and the tree read it: its span (null for the trace's own). */
export type TraceScore = PanelScore & { spanId: string | null };

/** A score as the trace's and the session's fragments read it. */
interface StoredScore {
  readonly id: string;
  readonly databaseId: string;
  readonly name: string;
  readonly dataType: string;
  readonly value: number | null | undefined;
  readonly stringValue: string | null | undefined;
  readonly comment: string | null | undefined;
  readonly source: string;
  readonly metadata?: unknown;
  readonly config: { readonly id: string } | null | undefined;
}

function panelScore(score: StoredScore): PanelScore {
  return {
    id: score.id,
    name: score.name,
    dataType: score.dataType,
    value: score.value ?? null,
    stringValue: score.stringValue ?? null,
    comment: score.comment ?? null,
    source: score.source.toLowerCase(),
    metadata: score.metadata ?? null,
    configId: score.config?.id ?? null,
  };
}

/** What a write names besides the score itself: its target and ids. */
type ScoreTargetInput = Pick<TraceScoresUpsertMutation['variables']['input'][number], 'target' | 'traceId' | 'spanId' | 'sessionId'>;

/**
 * The writes of a panel over `stored` (one refetchable fragment's scores): `write` stores a score
 * given in the UI as an annotation on the target `at` names, `remove` deletes one; each then reads
 * the scores anew (`refetch`) and settles once they are in.
 */
function useScoreWrites<At>(stored: readonly StoredScore[], refetch: RefetchFn<OperationType>, target: (at: At) => ScoreTargetInput) {
  const [upsert] = useCommit<TraceScoresUpsertMutation>(upsertMutation);
  const [deleteScore] = useCommit<TraceScoresDeleteMutation>(deleteMutation);
  const reload = useCallback(
    () =>
      new Promise<void>((resolve, reject) =>
        startTransition(() => {
          refetch({}, { fetchPolicy: 'network-only', onComplete: (error) => (error ? reject(error) : resolve()) });
        }),
      ),
    [refetch],
  );
  const write = useCallback(
    async (score: ScoreWrite, at: At) => {
      const databaseId = score.id === null ? null : (stored.find((row) => row.id === score.id)?.databaseId ?? null);
      await upsert({
        input: [
          {
            databaseId,
            ...target(at),
            name: score.name,
            dataType: score.dataType as ScoreDataType,
            value: score.value,
            stringValue: score.stringValue,
            comment: score.comment,
            configId: score.configId,
            source: 'ANNOTATION',
          },
        ],
      });
      await reload();
    },
    [stored, upsert, reload, target],
  );
  const remove = useCallback(
    async (scoreId: string) => {
      await deleteScore({ id: scoreId });
      await reload();
    },
    [deleteScore, reload],
  );
  return { write, remove };
}

/**
 * The scores of a trace and its spans, and the writes: `write` stores a score given in the UI on
 * the trace (`spanId` null) or a span, `remove` deletes one.
 */
export function useTraceScores(trace: TraceScores_trace$key, traceId: string) {
  const [data, refetch] = useRefetchableFragment<TraceScoresRefetchQuery, TraceScores_trace$key>(scoresFragment, trace);
  const scores = useMemo(
    (): TraceScore[] => data.scores.map((score) => ({ ...panelScore(score), spanId: score.target === 'SPAN' ? (score.spanId ?? null) : null })),
    [data.scores],
  );
  const target = useCallback((spanId: string | null): ScoreTargetInput => ({ target: spanId === null ? 'TRACE' : 'SPAN', traceId, spanId }), [traceId]);
  const { write, remove } = useScoreWrites(data.scores, refetch as RefetchFn<OperationType>, target);
  return { scores, write, remove };
}

/** The scores of a session (its own, not its traces'), and the writes of its panel. */
export function useSessionScores(session: SessionScorePanel_session$key, sessionId: string) {
  const [data, refetch] = useRefetchableFragment<SessionScorePanelRefetchQuery, SessionScorePanel_session$key>(sessionScoresFragment, session);
  const scores = useMemo(() => data.scores.map(panelScore), [data.scores]);
  const target = useCallback((): ScoreTargetInput => ({ target: 'SESSION', sessionId }), [sessionId]);
  const { write, remove } = useScoreWrites(data.scores, refetch as RefetchFn<OperationType>, target);
  return { scores, write: (score: ScoreWrite) => write(score, undefined), remove };
}

/** The scores of each span, by its index in the outline (the span tree shows them on its rows). */
export function scoresBySpan(scores: readonly TraceScore[], indexOf: ReadonlyMap<string, number>): Map<number, TraceScore[]> {
  const bySpan = new Map<number, TraceScore[]>();
  for (const score of scores) {
    const index = score.spanId === null ? undefined : indexOf.get(score.spanId);
    if (index !== undefined) bySpan.set(index, [...(bySpan.get(index) ?? []), score]);
  }
  return bySpan;
}
