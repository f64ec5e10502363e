// A rule's page (docs/ui.md#online-evaluation): what it evaluates, its health, its jobs by status
// and skip reason, the last errors, its judges' cost by day, its backfills (start one over a time
// range, cancel one) and a page-by-page list of its jobs. Stats and backfills follow the rule live
// through the `evaluationRuleProgress` subscription, which answers the rule node again as its jobs
// change (Relay puts it in the store, so every fragment of it is up to date).
import { startTransition, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { graphql, useFragment, useMutation, usePaginationFragment, usePreloadedQuery, useSubscription } from 'react-relay';
import type { GraphQLSubscriptionConfig } from 'relay-runtime';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { RulePageQueries } from './entrypoints.ts';
import type { RuleBackfills_rule$key } from '../__generated__/RuleBackfills_rule.graphql.ts';
import type { RuleBackfillsCancelMutation } from '../__generated__/RuleBackfillsCancelMutation.graphql.ts';
import type { RuleBackfillsStartMutation } from '../__generated__/RuleBackfillsStartMutation.graphql.ts';
import type { RuleCost_rule$key } from '../__generated__/RuleCost_rule.graphql.ts';
import type { RuleJobs_rule$key } from '../__generated__/RuleJobs_rule.graphql.ts';
import type { RuleJobsPaginationQuery, EvaluationRuleJobStatus } from '../__generated__/RuleJobsPaginationQuery.graphql.ts';
import type { RulePage_rule$key } from '../__generated__/RulePage_rule.graphql.ts';
import type { RulePageEnableMutation } from '../__generated__/RulePageEnableMutation.graphql.ts';
import type { RulePageQuery } from '../__generated__/RulePageQuery.graphql.ts';
import type { RulePageSubscription } from '../__generated__/RulePageSubscription.graphql.ts';
import type { RuleStats_rule$key } from '../__generated__/RuleStats_rule.graphql.ts';
import { formatCost, formatCount, formatDuration, formatTime } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { FieldIssues, FormIssues, invalidProps, useFormIssues } from '../components/forms.tsx';
import { instantOf } from '../observability/filters.ts';
import { jobCounts, jobStatuses, RuleHealth } from './RuleHealth.tsx';
import '../evaluations/evaluations.css';
import './rules.css';

const query = graphql`
  query RulePageQuery($id: ID!) {
    evaluationRule(id: $id) {
      ...RulePage_rule
      ...RuleJobs_rule
    }
  }
`;

const ruleFragment = graphql`
  fragment RulePage_rule on EvaluationRule {
    id
    databaseId
    name
    enabled
    target
    filter
    samplingRate
    delaySeconds
    mapping
    scoreName
    dailyCostLimitUsd
    version
    evaluatorConfig {
      name
      evaluatorKey
    }
    ...RuleHealth_rule
    ...RuleStats_rule
    ...RuleCost_rule
    ...RuleBackfills_rule
  }
`;

const statsFragment = graphql`
  fragment RuleStats_rule on EvaluationRule {
    stats {
      jobs {
        status
        count
      }
      skipped {
        reason
        count
      }
      costUsd
      costTodayUsd
      latencyP50
      latencyP95
      lastErrors {
        jobId
        message
        at
      }
    }
  }
`;

const costFragment = graphql`
  fragment RuleCost_rule on EvaluationRule {
    costByDay(days: 14) {
      day
      costUsd
      jobs
    }
  }
`;

const backfillsFragment = graphql`
  fragment RuleBackfills_rule on EvaluationRule {
    id
    backfills {
      id
      status
      error
      startedAfter
      startedBefore
      limit
      total
      done
      createdAt
    }
  }
`;

const jobsFragment = graphql`
  fragment RuleJobs_rule on EvaluationRule
  @refetchable(queryName: "RuleJobsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 25 }, cursor: { type: "String" }, status: { type: "EvaluationRuleJobStatus" }) {
    jobs(first: $count, after: $cursor, status: $status) @connection(key: "RuleJobs_jobs", filters: ["status"]) {
      edges {
        node {
          id
          databaseId
          targetType
          traceId
          spanId
          sessionId
          status
          skipReason
          error
          attempts
          retries
          cost
          latency
          createdAt
          finishedAt
          judgeTraceId
        }
      }
    }
  }
`;

// The rule node anew at each change: its stats, cost and backfills refresh wherever they show.
const subscription = graphql`
  subscription RulePageSubscription($id: ID!) {
    evaluationRuleProgress(id: $id) {
      id
      ...RuleHealth_rule
      ...RuleStats_rule
      ...RuleCost_rule
      ...RuleBackfills_rule
    }
  }
`;

const enableMutation = graphql`
  mutation RulePageEnableMutation($id: ID!, $enabled: Boolean!) {
    updateEvaluationRule(id: $id, input: { enabled: $enabled }) {
      id
      enabled
      ...RuleHealth_rule
    }
  }
`;

const startBackfill = graphql`
  mutation RuleBackfillsStartMutation($id: ID!, $after: DateTime!, $before: DateTime!, $limit: Int) {
    backfillEvaluationRule(id: $id, startedAfter: $after, startedBefore: $before, limit: $limit) {
      id
    }
  }
`;

const cancelBackfill = graphql`
  mutation RuleBackfillsCancelMutation($id: ID!) {
    cancelEvaluationRuleBackfill(id: $id) {
      id
      status
    }
  }
`;

const reasonLabels: Record<string, string> = {
  SAMPLED_OUT: 'sampled out',
  FILTER_NO_LONGER_MATCHES: 'filter no longer matches',
  COST_LIMIT_REACHED: 'daily cost limit reached',
  RULE_DISABLED: 'rule disabled',
  TARGET_DELETED: 'target deleted',
  BACKLOG_FULL: 'backlog full',
};
const reasonLabel = (reason: string) => reasonLabels[reason] ?? reason.toLowerCase();

function Stats({ rule: key }: { rule: RuleStats_rule$key }) {
  const { stats } = useFragment(statsFragment, key);
  const jobs = jobCounts(stats.jobs);
  const skipped = stats.skipped.filter((row) => row.count > 0);
  return (
    <>
      <dl className="figures rule-figures" aria-label="Jobs by status">
        {jobStatuses.map((status) => (
          <div key={status}>
            <dt>{status.toLowerCase()}</dt>
            <dd className={status === 'ERROR' && jobs.ERROR > 0 ? 'error-text' : undefined}>{formatCount(jobs[status])}</dd>
          </div>
        ))}
        <div>
          <dt>Cost today</dt>
          <dd>{formatCost(stats.costTodayUsd)}</dd>
        </div>
        <div>
          <dt>Cost in all</dt>
          <dd>{formatCost(stats.costUsd)}</dd>
        </div>
        <div>
          <dt>Latency p50 / p95</dt>
          <dd>
            {formatDuration(stats.latencyP50)} / {formatDuration(stats.latencyP95)}
          </dd>
        </div>
      </dl>
      <p className="muted">
        Skipped: {skipped.length === 0 ? 'none' : skipped.map((row) => `${reasonLabel(row.reason)} ${formatCount(row.count)}`).join(', ')}
      </p>
      {stats.lastErrors.length > 0 && (
        <section aria-label="Last errors">
          <h2>Last errors</h2>
          <ul className="rule-errors">
            {stats.lastErrors.map((error) => (
              <li key={error.jobId}>
                <span className="error-text">{error.message}</span> <span className="muted small">{error.at ? formatTime(error.at) : ''}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function CostChart({ rule: key }: { rule: RuleCost_rule$key }) {
  const { costByDay } = useFragment(costFragment, key);
  const max = Math.max(...costByDay.map((day) => day.costUsd), 0);
  return (
    <section aria-label="Cost by day">
      <h2>Cost by day</h2>
      <table className="rule-cost">
        <caption className="visually-hidden">The judges' cost and the jobs that ended on each of the last 14 UTC days</caption>
        <HeadRow columns={['Day (UTC)', 'Share of the busiest day', 'Cost', 'Jobs ended']} numeric={['Cost', 'Jobs ended']} />
        <tbody>
          {costByDay.map((day) => (
            <tr key={String(day.day)}>
              <td>{String(day.day).slice(0, 10)}</td>
              <td className="bar">
                <span className="cost-bar" style={{ width: `${max > 0 ? (day.costUsd / max) * 100 : 0}%` }} aria-hidden="true" />
              </td>
              <td className="numeric">{formatCost(day.costUsd)}</td>
              <td className="numeric">{formatCount(day.jobs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const waiting = new Set(['PENDING', 'RUNNING']);

function Backfills({ rule: key }: { rule: RuleBackfills_rule$key }) {
  const rule = useFragment(backfillsFragment, key);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [limit, setLimit] = useState('');
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [start, starting] = useMutation<RuleBackfillsStartMutation>(startBackfill);
  const [cancel, cancelling] = useMutation<RuleBackfillsCancelMutation>(cancelBackfill);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const local = new Map<string, string[]>();
    const after = instantOf(from);
    const before = instantOf(to);
    if (!after) local.set('started_after', ['Give the start of the range']);
    if (!before) local.set('started_before', ['Give the end of the range']);
    if (limit.trim() !== '' && !/^\d+$/.test(limit.trim())) local.set('limit', ['Enter a whole number']);
    setIssues(local);
    setFailure(null);
    if (!after || !before || local.size > 0) return;
    start({ variables: { id: rule.id, after, before, limit: limit.trim() ? Number(limit) : null }, onError });
  };
  return (
    <section aria-labelledby="backfills-title">
      <h2 id="backfills-title">Backfills</h2>
      <p className="muted">The rule applies to traces that arrive after it is enabled; a backfill runs it over earlier ones that started in a time range.</p>
      <form className="form backfill-form" onSubmit={submit} noValidate aria-label="New backfill">
        <label>
          Traces started from
          <input type="datetime-local" step="1" value={from} {...invalidProps(issues, 'started_after')} onChange={(event) => setFrom(event.target.value)} />
          <FieldIssues issues={issues} field="started_after" />
        </label>
        <label>
          to
          <input type="datetime-local" step="1" value={to} {...invalidProps(issues, 'started_before')} onChange={(event) => setTo(event.target.value)} />
          <FieldIssues issues={issues} field="started_before" />
        </label>
        <label>
          At most (targets)
          <input inputMode="numeric" value={limit} placeholder="50,000" {...invalidProps(issues, 'limit')} onChange={(event) => setLimit(event.target.value)} />
          <FieldIssues issues={issues} field="limit" />
        </label>
        <button type="submit" disabled={starting}>
          Start a backfill
        </button>
        <FormIssues issues={issues} fields={['started_after', 'started_before', 'limit']} failure={failure} />
      </form>
      {rule.backfills.length > 0 && (
        <table className="traces backfills">
          <caption className="visually-hidden">The rule's backfills, newest first</caption>
          <HeadRow columns={['Range', 'Status', 'Progress', 'Asked']} actions />
          <tbody>
            {rule.backfills.map((backfill) =>
              backfill ? (
                <tr key={backfill.id}>
                  <td>
                    {formatTime(String(backfill.startedAfter))} – {formatTime(String(backfill.startedBefore))}
                  </td>
                  <td>
                    <span className={`status status-${backfill.status.toLowerCase()}`}>{backfill.status.toLowerCase()}</span>
                    {backfill.error && <span className="error-text small"> {backfill.error}</span>}
                  </td>
                  <td>
                    <progress max={backfill.total || 1} value={backfill.done} aria-label="Jobs planned" />{' '}
                    <span>
                      {formatCount(backfill.done)} of {formatCount(backfill.total)} planned
                    </span>
                  </td>
                  <td>{formatTime(String(backfill.createdAt))}</td>
                  <td>
                    {waiting.has(backfill.status) && (
                      <button type="button" className="secondary" disabled={cancelling} onClick={() => cancel({ variables: { id: backfill.id } })}>
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ) : null,
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** While the stats change, the job list reloads at most this often. */
const RELOAD_MS = 2000;

function Jobs({ projectId, rule: key, version }: { projectId: string; rule: RuleJobs_rule$key; version: number }) {
  const { data, hasNext, isLoadingNext, loadNext, refetch } = usePaginationFragment<RuleJobsPaginationQuery, RuleJobs_rule$key>(jobsFragment, key);
  const [status, setStatus] = useState<EvaluationRuleJobStatus | ''>('');
  const first = useRef(true);
  useEffect(() => {
    // The first render shows what the page loaded; later versions (the rule changed) read anew.
    if (first.current) {
      first.current = false;
      return;
    }
    startTransition(() => {
      refetch({ status: status || null }, { fetchPolicy: 'network-only' });
    });
  }, [version, status, refetch]);
  const jobs = data.jobs.edges.map((edge) => edge.node);
  return (
    <section aria-labelledby="jobs-title">
      <div className="screen-head">
        <h2 id="jobs-title">Jobs</h2>
        <label>
          Status{' '}
          <select value={status} onChange={(event) => setStatus(event.target.value as EvaluationRuleJobStatus | '')}>
            <option value="">any</option>
            {jobStatuses.map((value) => (
              <option key={value} value={value}>
                {value.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
      </div>
      {jobs.length === 0 ? (
        <p className="muted">No job{status ? ` ${status.toLowerCase()}` : ''} yet: traces that match and arrive from now on get one.</p>
      ) : (
        <table className="traces rule-jobs">
          <caption className="visually-hidden">The rule's jobs, newest first</caption>
          <HeadRow columns={['Target', 'Status', 'Why', 'Attempts', 'Cost', 'Latency', 'Planned', 'Ended']} numeric={['Attempts', 'Cost', 'Latency']} />
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id}>
                <td>
                  {job.traceId ? (
                    <Link to={paths.trace(projectId, job.traceId, job.spanId)}>
                      {job.targetType.toLowerCase()} {job.spanId ?? job.traceId}
                    </Link>
                  ) : job.sessionId ? (
                    <Link to={paths.session(projectId, job.sessionId)}>session {job.sessionId}</Link>
                  ) : (
                    '–'
                  )}
                </td>
                <td>
                  <span className={`status status-${job.status.toLowerCase()}`}>{job.status.toLowerCase()}</span>
                </td>
                <td className={job.status === 'ERROR' ? 'error-text' : undefined}>
                  {job.skipReason ? reasonLabel(job.skipReason) : (job.error ?? '')}
                  {job.judgeTraceId && (
                    <>
                      {' '}
                      <Link to={paths.trace(projectId, job.judgeTraceId)}>judge’s trace</Link>
                    </>
                  )}
                </td>
                <td className="numeric">
                  {job.attempts}
                  {job.retries > 0 ? ` (+${job.retries} retries)` : ''}
                </td>
                <td className="numeric">{formatCost(job.cost)}</td>
                <td className="numeric">{formatDuration(job.latency)}</td>
                <td>{formatTime(String(job.createdAt))}</td>
                <td>{job.finishedAt ? formatTime(String(job.finishedAt)) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hasNext && (
        <button type="button" className="secondary" disabled={isLoadingNext} onClick={() => loadNext(25)}>
          More jobs
        </button>
      )}
    </section>
  );
}

function Follow({ config }: { config: GraphQLSubscriptionConfig<RulePageSubscription> }) {
  useSubscription(config);
  return null;
}

function RuleView({ projectId, rule: key, jobs }: { projectId: string; rule: RulePage_rule$key; jobs: RuleJobs_rule$key }) {
  const rule = useFragment(ruleFragment, key);
  const [live, setLive] = useState(false);
  const [version, setVersion] = useState(0);
  const lastReload = useRef(0);
  const reload = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => clearTimeout(reload.current ?? undefined), []);
  const config = useMemo<GraphQLSubscriptionConfig<RulePageSubscription>>(
    () => ({
      subscription,
      variables: { id: rule.id },
      onNext: () => {
        setLive(true);
        // At most one reload per RELOAD_MS, and one after the last change.
        if (reload.current) return;
        reload.current = setTimeout(
          () => {
            reload.current = null;
            lastReload.current = Date.now();
            setVersion((current) => current + 1);
          },
          Math.max(0, lastReload.current + RELOAD_MS - Date.now()),
        );
      },
      onError: () => setLive(false),
      onCompleted: () => setLive(false),
    }),
    [rule.id],
  );
  const [setEnabled, switching] = useMutation<RulePageEnableMutation>(enableMutation);
  const mapping = rule.mapping && typeof rule.mapping === 'object' ? Object.entries(rule.mapping as Record<string, string>) : [];
  const filter = rule.filter && typeof rule.filter === 'object' ? Object.entries(rule.filter as Record<string, unknown>) : [];
  return (
    <section aria-labelledby="rule-title" className="rule">
      <Follow config={config} />
      <p className="breadcrumb">
        <Link to={paths.rules(projectId)}>Online evaluation</Link> / {rule.name}
      </p>
      <div className="screen-head">
        <h1 id="rule-title">{rule.name}</h1>
        <RuleHealth rule={rule} />
        <span className={`live${live ? ' on' : ''}`}>{live ? 'Live' : 'Connecting…'}</span>
        <Link className="button-link" to={paths.editRule(projectId, rule.databaseId)}>
          Edit
        </Link>
        <button type="button" className="secondary" disabled={switching} onClick={() => setEnabled({ variables: { id: rule.id, enabled: !rule.enabled } })}>
          {rule.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      <dl className="figures rule-setup">
        <div>
          <dt>Evaluates</dt>
          <dd>
            {rule.target.toLowerCase()}s
            {filter.length > 0 ? ' where ' + filter.map(([name, value]) => `${name} = ${JSON.stringify(value)}`).join(', ') : ' (all)'}
          </dd>
        </div>
        <div>
          <dt>With</dt>
          <dd>
            {rule.evaluatorConfig ? (
              `${rule.evaluatorConfig.name} (${rule.evaluatorConfig.evaluatorKey})`
            ) : (
              <span className="error-text">a deleted config</span>
            )}{' '}
            → score “{rule.scoreName}”
          </dd>
        </div>
        <div>
          <dt>Mapping</dt>
          <dd>{mapping.length > 0 ? mapping.map(([name, path]) => `${name} ← ${path}`).join(', ') : 'input and output'}</dd>
        </div>
        <div>
          <dt>Sampling, delay</dt>
          <dd>
            {Math.round(rule.samplingRate * 1000) / 10}%, {rule.delaySeconds} s
          </dd>
        </div>
        <div>
          <dt>Daily cost limit</dt>
          <dd>{rule.dailyCostLimitUsd == null ? 'none' : formatCost(rule.dailyCostLimitUsd)}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{rule.version}</dd>
        </div>
      </dl>
      <Stats rule={rule} />
      <CostChart rule={rule} />
      <Backfills rule={rule} />
      <Jobs projectId={projectId} rule={jobs} version={version} />
    </section>
  );
}

export function RulePage({ route: { projectId }, queries }: ScreenProps<RouteOf<'rule'>, RulePageQueries>) {
  const data = usePreloadedQuery<RulePageQuery>(query, queries.rule);
  const rule = data.evaluationRule;
  if (!rule)
    return (
      <Empty title="No such rule">
        <Link to={paths.rules(projectId)}>See the rules</Link>
      </Empty>
    );
  return <RuleView projectId={projectId} rule={rule} jobs={rule} />;
}
