// What a variant revision did outside Assay (docs/ui.md#a-revisions-traces): the traces whose spans
// name it (a Langfuse prompt version, Agenta's references, Assay's variant attributes), their
// count, cost, tokens, latency and scores in one environment or all, and two revisions' production
// figures side by side.
import { useState } from 'react';
import { graphql, useFragment, useLazyLoadQuery } from 'react-relay';
import type { RevisionTrafficCompareQuery } from '../__generated__/RevisionTrafficCompareQuery.graphql.ts';
import type { RevisionTrafficQuery } from '../__generated__/RevisionTrafficQuery.graphql.ts';
import type { RevisionTraffic_stats$data, RevisionTraffic_stats$key } from '../__generated__/RevisionTraffic_stats.graphql.ts';
import { Empty, Figures, HeadRow } from '../components/states.tsx';
import { formatCost, formatCount, formatDuration, formatPercent, formatTime } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { summaryFigure } from '../scores/columns.tsx';

const statsFragment = graphql`
  fragment RevisionTraffic_stats on RevisionStats {
    traces {
      count
      errorRate
      cost
      promptTokens
      completionTokens
      totalTokens
      latency {
        p50
        p95
      }
    }
    scores {
      name
      dataType
      count
      mean
      interval {
        low
        high
      }
      labels {
        label
        share
      }
    }
  }
`;

const trafficQuery = graphql`
  query RevisionTrafficQuery($id: ID!, $environment: String) {
    node(id: $id) {
      ... on VariantRevision {
        stats(environment: $environment) {
          ...RevisionTraffic_stats
        }
        traces(first: 20, environment: $environment) {
          edges {
            node {
              id
              traceId
              name
              startTime
              environment
              latency
              cost
              errorCount
              tokens {
                totalTokens
              }
            }
          }
        }
      }
    }
  }
`;

const compareQuery = graphql`
  query RevisionTrafficCompareQuery($before: ID!, $after: ID!) {
    before: node(id: $before) {
      ... on VariantRevision {
        production {
          ...RevisionTraffic_stats
        }
      }
    }
    after: node(id: $after) {
      ... on VariantRevision {
        production {
          ...RevisionTraffic_stats
        }
      }
    }
  }
`;

/** The measures of a revision's traces, each as a label and its text. */
function measures(stats: RevisionTraffic_stats$data): [string, string][] {
  const { traces } = stats;
  return [
    ['Traces', formatCount(traces.count)],
    ['Errors', formatPercent(traces.errorRate)],
    ['Cost', formatCost(traces.cost)],
    ['Tokens', formatCount(traces.totalTokens)],
    ['Prompt tokens', formatCount(traces.promptTokens)],
    ['Completion tokens', formatCount(traces.completionTokens)],
    ['Latency p50', formatDuration(traces.latency.p50)],
    ['Latency p95', formatDuration(traces.latency.p95)],
  ];
}

export function RevisionTraffic({
  projectId,
  revisionId,
  revision,
  environments,
}: {
  projectId: string;
  revisionId: string;
  revision: number;
  environments: readonly string[];
}) {
  const [environment, setEnvironment] = useState('');
  const data = useLazyLoadQuery<RevisionTrafficQuery>(trafficQuery, { id: revisionId, environment: environment || null }, { fetchPolicy: 'store-and-network' });
  const stats = useFragment<RevisionTraffic_stats$key>(statsFragment, data.node?.stats ?? null);
  const traces = data.node?.traces?.edges.map((edge) => edge.node) ?? [];
  return (
    <div>
      <label>
        Environment
        <select value={environment} onChange={(event) => setEnvironment(event.target.value)}>
          <option value="">All</option>
          {environments.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {stats && <Figures figures={[...measures(stats), ...stats.scores.map(summaryFigure)]} label={`Traces of v${revision}`} />}
      {traces.length === 0 ? (
        <Empty title={`No traces name v${revision}${environment ? ` in ${environment}` : ''}`}>
          Spans link to a revision by naming it: a Langfuse generation given the prompt, Agenta&apos;s <code>ag.refs.*</code>, or <code>assay.variant.*</code>.
        </Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">{`Traces of v${revision}`}</caption>
          <HeadRow columns={['Trace', 'Started', 'Environment', 'Latency', 'Cost', 'Tokens']} numeric={['Latency', 'Cost', 'Tokens']} />
          <tbody>
            {traces.map((trace) => (
              <tr key={trace.id} className={trace.errorCount > 0 ? 'failed' : undefined}>
                <td>
                  <Link to={paths.trace(projectId, trace.traceId)}>{trace.name ?? trace.traceId}</Link>
                </td>
                <td>{formatTime(trace.startTime)}</td>
                <td>{trace.environment ?? '–'}</td>
                <td className="numeric">{formatDuration(trace.latency)}</td>
                <td className="numeric">{formatCost(trace.cost)}</td>
                <td className="numeric">{formatCount(trace.tokens.totalTokens)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Two revisions' production figures side by side, a row per measure and per score name. */
export function RevisionComparison({ before, after }: { before: { id: string; revision: number }; after: { id: string; revision: number } }) {
  const data = useLazyLoadQuery<RevisionTrafficCompareQuery>(compareQuery, { before: before.id, after: after.id }, { fetchPolicy: 'store-and-network' });
  const left = useFragment<RevisionTraffic_stats$key>(statsFragment, data.before?.production ?? null);
  const right = useFragment<RevisionTraffic_stats$key>(statsFragment, data.after?.production ?? null);
  if (!left || !right) return null;
  const rows = new Map<string, [string, string]>();
  const add = (figures: [string, string][], side: 0 | 1) => {
    for (const [label, value] of figures) {
      const row = rows.get(label) ?? ['–', '–'];
      row[side] = value;
      rows.set(label, row);
    }
  };
  add([...measures(left), ...left.scores.map(summaryFigure)], 0);
  add([...measures(right), ...right.scores.map(summaryFigure)], 1);
  return (
    <table className="traces">
      <caption className="visually-hidden">{`Production: v${before.revision} and v${after.revision}`}</caption>
      <HeadRow columns={['In production', `v${before.revision}`, `v${after.revision}`]} numeric={[`v${before.revision}`, `v${after.revision}`]} />
      <tbody>
        {[...rows].map(([label, [a, b]]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td className="numeric">{a}</td>
            <td className="numeric">{b}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
