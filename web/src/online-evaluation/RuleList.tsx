// The project's online evaluation rules (docs/ui.md#online-evaluation): each with its health, whether
// it runs (active, paused and why, disabled), its jobs waiting, done, failed and skipped, and what
// its judges cost today.
import { graphql, useFragment, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { RuleListQueries } from './entrypoints.ts';
import type { RuleList_query$key } from '../__generated__/RuleList_query.graphql.ts';
import type { RuleListPaginationQuery } from '../__generated__/RuleListPaginationQuery.graphql.ts';
import type { RuleListQuery } from '../__generated__/RuleListQuery.graphql.ts';
import type { RuleListRow_rule$key } from '../__generated__/RuleListRow_rule.graphql.ts';
import { useWholeConnection } from '../connections.ts';
import { formatCost } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { RuleHealth, jobCounts } from './RuleHealth.tsx';
import '../evaluations/evaluations.css';
import './rules.css';

const query = graphql`
  query RuleListQuery {
    ...RuleList_query
  }
`;

const listFragment = graphql`
  fragment RuleList_query on Query
  @refetchable(queryName: "RuleListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    evaluationRules(first: $count, after: $cursor) @connection(key: "RuleList_evaluationRules") {
      edges {
        node {
          id
          ...RuleListRow_rule
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment RuleListRow_rule on EvaluationRule {
    databaseId
    name
    target
    scoreName
    samplingRate
    evaluatorConfig {
      name
    }
    stats {
      jobs {
        status
        count
      }
      costTodayUsd
    }
    ...RuleHealth_rule
  }
`;

function RuleRow({ projectId, rule: key }: { projectId: string; rule: RuleListRow_rule$key }) {
  const rule = useFragment(rowFragment, key);
  const jobs = jobCounts(rule.stats.jobs);
  return (
    <tr>
      <th scope="row">
        <Link to={paths.rule(projectId, rule.databaseId)}>{rule.name}</Link>
      </th>
      <td>
        <RuleHealth rule={rule} />
      </td>
      <td>
        {rule.target.toLowerCase()}s{rule.samplingRate < 1 ? `, ${Math.round(rule.samplingRate * 1000) / 10}% sampled` : ''}
      </td>
      <td>
        {rule.evaluatorConfig?.name ?? <span className="error-text">deleted config</span>} → {rule.scoreName}
      </td>
      <td className="numeric">{jobs.PENDING + jobs.RUNNING}</td>
      <td className="numeric">{jobs.DONE}</td>
      <td className={`numeric${jobs.ERROR > 0 ? ' error-text' : ''}`}>{jobs.ERROR}</td>
      <td className="numeric">{jobs.SKIPPED}</td>
      <td className="numeric">{formatCost(rule.stats.costTodayUsd)}</td>
    </tr>
  );
}

export function RuleList({ route: { projectId }, queries }: ScreenProps<RouteOf<'rules'>, RuleListQueries>) {
  const root = usePreloadedQuery<RuleListQuery>(query, queries.list);
  const { data, pages } = useWholeConnection<RuleListPaginationQuery, RuleList_query$key>(listFragment, root);
  const rules = data.evaluationRules.edges.map((edge) => edge.node);
  return (
    <section aria-labelledby="rules-title">
      <div className="screen-head">
        <h1 id="rules-title">Online evaluation</h1>
        <Link className="button-link" to={paths.newRule(projectId)}>
          New rule
        </Link>
      </div>
      <p className="muted">Rules run evaluator configs on production traces as they arrive; their results are scores of source “online”.</p>
      {rules.length === 0 ? (
        <Empty title="No rule yet">
          <Link to={paths.newRule(projectId)}>Make one</Link> to score the traces that arrive from now on.
        </Empty>
      ) : (
        <table className="traces rules">
          <caption className="visually-hidden">Online evaluation rules, oldest first</caption>
          <HeadRow
            columns={['Rule', 'Health', 'Evaluates', 'Config → score', 'Waiting', 'Done', 'Errors', 'Skipped', 'Cost today']}
            numeric={['Waiting', 'Done', 'Errors', 'Skipped', 'Cost today']}
          />
          <tbody>
            {rules.map((rule) => (
              <RuleRow key={rule.id} projectId={projectId} rule={rule} />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
    </section>
  );
}
