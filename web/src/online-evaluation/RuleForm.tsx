// The rule form (docs/ui.md#online-evaluation), to make a rule or edit one: its name, what it
// evaluates and which (the trace list's filter fields, with a live count of the recent traces that
// match), the evaluator config, the mapping previewed on a real trace (`previewEvaluationRule`,
// nothing stored), sampling, delay, score name and daily cost limit. The API checks everything and
// a refusal's faults appear beside their fields.
import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { fetchQuery, graphql, useMutation, usePreloadedQuery, useRelayEnvironment } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { RuleFormQueries } from './entrypoints.ts';
import type { RuleConfigChoices_query$key } from '../__generated__/RuleConfigChoices_query.graphql.ts';
import type { RuleConfigChoicesPaginationQuery } from '../__generated__/RuleConfigChoicesPaginationQuery.graphql.ts';
import type { RuleFormCreateMutation } from '../__generated__/RuleFormCreateMutation.graphql.ts';
import type { RuleFormMatchesQuery } from '../__generated__/RuleFormMatchesQuery.graphql.ts';
import type { RuleFormPreviewMutation, RuleFormPreviewMutation$data } from '../__generated__/RuleFormPreviewMutation.graphql.ts';
import type { RuleFormQuery } from '../__generated__/RuleFormQuery.graphql.ts';
import type { RuleFormUpdateMutation } from '../__generated__/RuleFormUpdateMutation.graphql.ts';
import { useWholeConnection } from '../connections.ts';
import { formatCost, formatCount } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage } from '../components/states.tsx';
import { FieldIssues, FormIssues, invalidProps, SelectField, useFormIssues } from '../components/forms.tsx';
import { MoreFilterFields, moreFiltersSet, TraceTextFields } from '../observability/TraceFilters.tsx';
import type { FilterDraft } from '../observability/TraceFilters.tsx';
import { draftOfRule, emptyDraft, patchOf, RECENT_HOURS, recentVariables, ruleInputOf, targets, type RuleDraft, type Target } from './ruleForm.ts';
import '../evaluations/evaluations.css';
import './rules.css';

const query = graphql`
  query RuleFormQuery($id: ID!, $editing: Boolean!) {
    ...RuleConfigChoices_query
    evaluationRule(id: $id) @include(if: $editing) {
      id
      databaseId
      name
      enabled
      target
      filter
      samplingRate
      delaySeconds
      evaluatorConfig {
        id
      }
      mapping
      scoreName
      dailyCostLimitUsd
    }
  }
`;

const configsFragment = graphql`
  fragment RuleConfigChoices_query on Query
  @refetchable(queryName: "RuleConfigChoicesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    evaluatorConfigs(first: $count, after: $cursor) @connection(key: "RuleConfigChoices_evaluatorConfigs") {
      edges {
        node {
          id
          name
          evaluatorKey
          app {
            name
          }
        }
      }
    }
  }
`;

// The recent traces the filter matches: how many, and the latest, which the preview offers.
const matchesQuery = graphql`
  query RuleFormMatchesQuery(
    $startedAfter: DateTime
    $nameContains: String
    $spanKind: [SpanKind!]
    $status: [SpanStatusCode!]
    $userId: String
    $sessionId: String
    $environment: String
    $model: String
    $text: String
    $minCost: Float
    $maxCost: Float
    $minLatency: Float
    $maxLatency: Float
    $attributes: [AttributeFilter!]
  ) {
    traceMetrics(
      startedAfter: $startedAfter
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
      attributes: $attributes
    ) {
      count
    }
    traces(
      first: 1
      startedAfter: $startedAfter
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
      attributes: $attributes
    ) {
      edges {
        node {
          traceId
          name
        }
      }
    }
  }
`;

const createMutation = graphql`
  mutation RuleFormCreateMutation($input: EvaluationRuleInput!) {
    createEvaluationRule(input: $input) {
      id
      databaseId
    }
  }
`;

const updateMutation = graphql`
  mutation RuleFormUpdateMutation($id: ID!, $input: EvaluationRulePatchInput!) {
    updateEvaluationRule(id: $id, input: $input) {
      id
      databaseId
      ...RulePage_rule
    }
  }
`;

const previewMutation = graphql`
  mutation RuleFormPreviewMutation($rule: EvaluationRuleInput!, $traceId: String!) {
    previewEvaluationRule(rule: $rule, traceId: $traceId) {
      matches
      target {
        type
        traceId
        spanId
        sessionId
      }
      variables
      result
      cost
    }
  }
`;

/** The fields a refusal may name that the form shows (the rest are listed below it). */
const formFields = [
  'name',
  'enabled',
  'target',
  'filter',
  'sampling_rate',
  'delay_seconds',
  'evaluator_config_id',
  'mapping',
  'score_name',
  'daily_cost_limit_usd',
];

/** How long the filter rests before its matches are counted again. */
const COUNT_DELAY_MS = 400;

type Matches = { count: number; latest: { traceId: string; name: string } | null } | { error: unknown } | null;

/** The recent traces the filter matches, counted again once it rests. */
function useMatches(filter: FilterDraft): Matches {
  const environment = useRelayEnvironment();
  const [matches, setMatches] = useState<Matches>(null);
  const key = JSON.stringify(filter);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      fetchQuery<RuleFormMatchesQuery>(environment, matchesQuery, recentVariables(JSON.parse(key) as FilterDraft, Date.now()), {
        fetchPolicy: 'network-only',
      })
        .toPromise()
        .then(
          (data) => {
            const latest = data?.traces.edges[0]?.node;
            if (current) setMatches({ count: data?.traceMetrics.count ?? 0, latest: latest ? { traceId: latest.traceId, name: latest.name ?? '' } : null });
          },
          (error: unknown) => current && setMatches({ error }),
        );
    }, COUNT_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [environment, key]);
  return matches;
}

function MatchCount({ matches, target }: { matches: Matches; target: Target }) {
  let text: ReactNode = 'Counting the matching traces…';
  if (matches && 'error' in matches) text = <ErrorMessage error={matches.error} />;
  else if (matches)
    text = (
      <>
        <strong>{formatCount(matches.count)}</strong> {matches.count === 1 ? 'trace' : 'traces'} of the last {RECENT_HOURS} hours match
        {target === 'SPAN' ? ' (the rule evaluates their matching spans)' : target === 'SESSION' ? ' (the rule evaluates their sessions)' : ''}.
      </>
    );
  return (
    <p className="rule-matches" role="status" aria-live="polite">
      {text}
    </p>
  );
}

type Preview = RuleFormPreviewMutation$data['previewEvaluationRule'];

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The mapping tried on a trace: the variables the evaluator would get and its result. */
function PreviewPanel({ draft, latest }: { draft: RuleDraft; latest: { traceId: string; name: string } | null }) {
  const [traceId, setTraceId] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  const { issues, setIssues, failure, setFailure, onError, reset } = useFormIssues();
  const [commit, running] = useMutation<RuleFormPreviewMutation>(previewMutation);
  const chosen = traceId.trim() || latest?.traceId || '';
  const run = () => {
    reset();
    setPreview(null);
    const { input, issues: local } = ruleInputOf(draft);
    if (local.size > 0) return setIssues(local);
    if (!chosen) return setFailure(new Error('Give the id of a trace to try the rule on'));
    commit({
      variables: { rule: { ...input, name: input.name || 'preview' }, traceId: chosen },
      onCompleted: (response) => setPreview(response.previewEvaluationRule),
      onError,
    });
  };
  const result = preview?.result as { type?: string; value?: unknown; error?: { message?: string } | null } | null | undefined;
  return (
    <section className="rule-preview" aria-label="Preview on a trace">
      <h3>Preview on a trace</h3>
      <label>
        Trace id
        <input
          value={traceId}
          placeholder={latest ? `${latest.traceId} (the latest match, ${latest.name})` : 'a trace id'}
          onChange={(event) => setTraceId(event.target.value)}
        />
      </label>
      <button type="button" className="secondary" disabled={running} onClick={run}>
        {running ? 'Running the evaluator…' : 'Preview'}
      </button>
      <p className="muted small">The evaluator is really called (a judge costs); nothing is stored.</p>
      <FormIssues issues={issues} fields={[]} failure={failure} />
      {preview && (
        <div className="preview-result" role="region" aria-label="Preview result">
          <p>
            {preview.matches ? 'The trace matches the filter.' : 'The trace does not match the filter (the rule would not evaluate it).'}
            {preview.target && (
              <>
                {' '}
                Target: {preview.target.type.toLowerCase()} {preview.target.spanId ?? preview.target.sessionId ?? preview.target.traceId}.
              </>
            )}
          </p>
          <p>
            Result:{' '}
            <strong className={result?.error ? 'error-text' : undefined}>
              {result?.error ? (result.error.message ?? 'failed') : result ? String(result.value) : '–'}
            </strong>
            {preview.cost > 0 && <span className="muted"> ({formatCost(preview.cost)})</span>}
          </p>
          <details open>
            <summary>Variables sent</summary>
            <pre>{json(preview.variables)}</pre>
          </details>
        </div>
      )}
    </section>
  );
}

function ConfigSelect({
  query: key,
  value,
  onChange,
  issues,
}: {
  query: RuleConfigChoices_query$key;
  value: string;
  onChange: (id: string) => void;
  issues: Map<string, string[]>;
}) {
  const { data } = useWholeConnection<RuleConfigChoicesPaginationQuery, RuleConfigChoices_query$key>(configsFragment, key);
  const configs = data.evaluatorConfigs.edges.map((edge) => edge.node);
  return (
    <SelectField
      label="Evaluator config"
      field="evaluator_config_id"
      issues={issues}
      value={value}
      onChange={onChange}
      placeholder={configs.length === 0 ? 'No evaluator config yet: make one in an app' : 'Choose an evaluator config'}
      options={configs.map((config) => ({ value: config.id, label: `${config.name} (${config.evaluatorKey}, ${config.app.name})` }))}
    />
  );
}

const targetLabels: Record<Target, string> = {
  TRACE: 'Traces, once their last span is the delay old',
  SPAN: 'Spans, each the delay after it arrives',
  SESSION: 'Sessions, once idle for the delay',
};

function RuleFields({
  configs,
  initial,
  submitLabel,
  onSubmit,
  issues,
  failure,
  busy,
}: {
  configs: RuleConfigChoices_query$key;
  initial: RuleDraft;
  submitLabel: string;
  onSubmit: (draft: RuleDraft) => void;
  issues: Map<string, string[]>;
  failure: unknown;
  busy: boolean;
}) {
  const [draft, setDraft] = useState(initial);
  const set = <K extends keyof RuleDraft>(key: K, value: RuleDraft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const setFilter = <K extends keyof FilterDraft>(key: K, value: FilterDraft[K]) =>
    setDraft((current) => ({ ...current, filter: { ...current.filter, [key]: value } }));
  const matches = useMatches(draft.filter);
  const latest = matches && 'count' in matches ? matches.latest : null;
  const text = (
    key: 'name' | 'samplingRate' | 'delaySeconds' | 'scoreName' | 'dailyCostLimitUsd',
    field: string,
    label: string,
    hint?: string,
    extra: object = {},
  ) => (
    <label>
      {label}
      <input value={draft[key]} {...invalidProps(issues, field)} {...extra} onChange={(event) => set(key, event.target.value)} />
      {hint && <span className="muted small">{hint}</span>}
      <FieldIssues issues={issues} field={field} />
    </label>
  );
  const path = (key: 'inputs' | 'output' | 'expected', label: string, placeholder: string) => (
    <label>
      {label}
      <input value={draft[key]} placeholder={placeholder} {...invalidProps(issues, `mapping.${key}`)} onChange={(event) => set(key, event.target.value)} />
      <FieldIssues issues={issues} field={`mapping.${key}`} />
    </label>
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(draft);
  };
  return (
    <form className="form rule-form" onSubmit={submit} noValidate aria-label="Rule">
      {text('name', 'name', 'Name')}
      <label className="inline">
        <input type="checkbox" checked={draft.enabled} onChange={(event) => set('enabled', event.target.checked)} /> Enabled: evaluate the targets that arrive
        from now on
      </label>
      <label>
        Evaluates
        <select value={draft.target} {...invalidProps(issues, 'target')} onChange={(event) => set('target', event.target.value as Target)}>
          {targets.map((target) => (
            <option key={target} value={target}>
              {targetLabels[target]}
            </option>
          ))}
        </select>
        <FieldIssues issues={issues} field="target" />
      </label>
      <div className="filters rule-filter" role="group" aria-label="Filter">
        <TraceTextFields draft={draft.filter} set={setFilter} legend="Which traces" />
        <MoreFilterFields
          draft={draft.filter}
          set={setFilter}
          open={moreFiltersSet(draft.filter)}
          kindLegend={draft.target === 'SPAN' ? 'Kind of the span' : 'Kind of the root span'}
        />
        <FieldIssues issues={issues} field="filter" />
        <MatchCount matches={matches} target={draft.target} />
      </div>
      <ConfigSelect query={configs} value={draft.evaluatorConfigId} onChange={(id) => set('evaluatorConfigId', id)} issues={issues} />
      <fieldset>
        <legend>Mapping (JSONPaths; empty: the target’s input and output)</legend>
        {path('inputs', 'Inputs', '$.input')}
        {path('output', 'Output', '$.output')}
        {path('expected', 'Expected answer', 'none')}
        <FieldIssues issues={issues} field="mapping" />
        <PreviewPanel draft={draft} latest={latest} />
      </fieldset>
      {text('samplingRate', 'sampling_rate', 'Sampling rate', 'The share evaluated, above 0 and at most 1; decided by a hash of the target’s id.', {
        inputMode: 'decimal',
      })}
      {text('delaySeconds', 'delay_seconds', 'Delay (seconds)', undefined, { inputMode: 'numeric' })}
      {text('scoreName', 'score_name', 'Score name', 'Empty: the evaluator config’s name.')}
      {text('dailyCostLimitUsd', 'daily_cost_limit_usd', 'Daily cost limit (USD)', 'Empty: no limit. Counted from 00:00 UTC.', { inputMode: 'decimal' })}
      <FormIssues issues={issues} fields={formFields} failure={failure} notice="Some fields need a change: see beside them." />
      <div className="form-actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

export function NewRule({ route: { projectId }, queries }: ScreenProps<RouteOf<'rule-new'>, RuleFormQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<RuleFormQuery>(query, queries.form);
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [commit, busy] = useMutation<RuleFormCreateMutation>(createMutation);
  const submit = (draft: RuleDraft) => {
    const { input, issues: local } = ruleInputOf(draft);
    setIssues(local);
    setFailure(null);
    if (local.size > 0) return;
    commit({
      variables: { input },
      onCompleted: (response) => navigate(paths.rule(projectId, response.createEvaluationRule.databaseId)),
      onError,
    });
  };
  return (
    <section aria-labelledby="rule-form-title">
      <p className="breadcrumb">
        <Link to={paths.rules(projectId)}>Online evaluation</Link> / new
      </p>
      <h1 id="rule-form-title">New rule</h1>
      <RuleFields
        configs={data}
        initial={useMemo(emptyDraft, [])}
        submitLabel="Create the rule"
        onSubmit={submit}
        issues={issues}
        failure={failure}
        busy={busy}
      />
    </section>
  );
}

export function EditRule({ route: { projectId, ruleId }, queries }: ScreenProps<RouteOf<'rule-edit'>, RuleFormQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<RuleFormQuery>(query, queries.form);
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [commit, busy] = useMutation<RuleFormUpdateMutation>(updateMutation);
  const rule = data.evaluationRule ?? null;
  const initial = useMemo(() => (rule ? draftOfRule(rule) : null), [rule]);
  if (!rule || !initial)
    return (
      <Empty title="No such rule">
        <Link to={paths.rules(projectId)}>See the rules</Link>
      </Empty>
    );
  const submit = (draft: RuleDraft) => {
    const { input, issues: local } = ruleInputOf(draft);
    setIssues(local);
    setFailure(null);
    if (local.size > 0) return;
    commit({
      variables: { id: rule.id, input: patchOf(ruleInputOf(initial).input, input) },
      onCompleted: () => navigate(paths.rule(projectId, ruleId)),
      onError,
    });
  };
  return (
    <section aria-labelledby="rule-form-title">
      <p className="breadcrumb">
        <Link to={paths.rules(projectId)}>Online evaluation</Link> / <Link to={paths.rule(projectId, ruleId)}>{rule.name}</Link> / edit
      </p>
      <h1 id="rule-form-title">Edit {rule.name}</h1>
      <RuleFields configs={data} initial={initial} submitLabel="Save the rule" onSubmit={submit} issues={issues} failure={failure} busy={busy} />
    </section>
  );
}
