// Starting evaluations (docs/ui.md#evaluations): an app, its variants (one evaluation each), a test
// set, the app's evaluator configs and a rate limit, sent as `createEvaluations`; the API checks
// everything and a refusal's faults appear beside their fields.
import { Suspense, useState, type FormEvent } from 'react';
import { graphql, useMutation, usePreloadedQuery, useQueryLoader, type PreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { NewEvaluationQueries } from './entrypoints.ts';
import type { NewEvaluationAppQuery } from '../__generated__/NewEvaluationAppQuery.graphql.ts';
import type { NewEvaluationMutation } from '../__generated__/NewEvaluationMutation.graphql.ts';
import type { NewEvaluationQuery } from '../__generated__/NewEvaluationQuery.graphql.ts';
import type { VariantChoices_app$key } from '../__generated__/VariantChoices_app.graphql.ts';
import type { ConfigChoices_query$key } from '../__generated__/ConfigChoices_query.graphql.ts';
import { appOptions, useAppChoices, useVariantChoices } from '../apps/choices.ts';
import { useConfigChoices } from '../evaluators/choices.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { testsetOptions, useTestsetChoices } from '../testsets/choices.ts';
import { Empty, ErrorBoundary, Loading } from '../components/states.tsx';
import { ChecksField, FieldIssues, FormIssues, invalidProps, namedOptions, SelectField, useFormIssues } from '../components/forms.tsx';
import './evaluations.css';

const query = graphql`
  query NewEvaluationQuery {
    ...AppChoices_query
    ...TestsetChoices_query
  }
`;

// Asked when an app is chosen: its variants and evaluator configs.
const appQuery = graphql`
  query NewEvaluationAppQuery($appId: ID!) {
    app(id: $appId) {
      ...VariantChoices_app
    }
    ...ConfigChoices_query @arguments(appId: $appId)
  }
`;

const mutation = graphql`
  mutation NewEvaluationMutation($input: CreateEvaluationInput!) {
    createEvaluations(input: $input) {
      id
      databaseId
    }
  }
`;

/** Agenta's defaults, as the REST examples use them (docs/evaluations.md#rate_limit). */
const defaultRateLimit = { batch_size: '10', max_retries: '3', retry_delay: '3', delay_between_batches: '0' };
type RateField = keyof typeof defaultRateLimit;
const rateFields: { key: RateField; label: string; camel: 'batchSize' | 'maxRetries' | 'retryDelay' | 'delayBetweenBatches' }[] = [
  { key: 'batch_size', label: 'Calls at once', camel: 'batchSize' },
  { key: 'max_retries', label: 'Retries of a failed call', camel: 'maxRetries' },
  { key: 'retry_delay', label: 'Seconds between retries', camel: 'retryDelay' },
  { key: 'delay_between_batches', label: 'Seconds between batches', camel: 'delayBetweenBatches' },
];
const formFields = ['app_id', 'variant_ids', 'testset_id', 'evaluators_configs', 'rate_limit', 'correct_answer_column'];

interface Choices {
  variantIds: string[];
  configIds: string[];
}

type ChoiceProps = { choices: Choices; setChoices: (next: Choices) => void; issues: Map<string, string[]> };

function VariantChecks({ app, choices, setChoices, issues }: ChoiceProps & { app: VariantChoices_app$key }) {
  const { variants } = useVariantChoices(app);
  return (
    <ChecksField
      legend="Variants (one evaluation each)"
      field="variant_ids"
      issues={issues}
      empty="The app has no variant yet."
      options={namedOptions(variants, (variant) => `v${variant.revision}, ${variant.kind.toLowerCase()}`)}
      chosen={choices.variantIds}
      onChange={(variantIds) => setChoices({ ...choices, variantIds })}
    />
  );
}

function ConfigChecks({ query: key, choices, setChoices, issues }: ChoiceProps & { query: ConfigChoices_query$key }) {
  const { configs } = useConfigChoices(key);
  return (
    <ChecksField
      legend="Evaluator configs"
      field="evaluators_configs"
      issues={issues}
      empty="The app has no evaluator config yet."
      options={namedOptions(configs, (config) => config.evaluatorKey)}
      chosen={choices.configIds}
      onChange={(configIds) => setChoices({ ...choices, configIds })}
    />
  );
}

function AppChoices({ queryRef, ...props }: ChoiceProps & { queryRef: PreloadedQuery<NewEvaluationAppQuery> }) {
  const data = usePreloadedQuery<NewEvaluationAppQuery>(appQuery, queryRef);
  return (
    <>
      {data.app ? <VariantChecks app={data.app} {...props} /> : <p className="muted">The app has no variant yet.</p>}
      <ConfigChecks query={data} {...props} />
    </>
  );
}

export function NewEvaluation({ route: { projectId }, queries }: ScreenProps<RouteOf<'evaluation-new'>, NewEvaluationQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<NewEvaluationQuery>(query, queries.choices);
  const { apps } = useAppChoices(data);
  const { testsets } = useTestsetChoices(data);
  const [appQueryRef, loadAppQuery] = useQueryLoader<NewEvaluationAppQuery>(appQuery);
  const [appId, setAppId] = useState('');
  const [testsetId, setTestsetId] = useState('');
  const [choices, setChoices] = useState<Choices>({ variantIds: [], configIds: [] });
  const [rateLimit, setRateLimit] = useState(defaultRateLimit);
  const [correctAnswerColumn, setCorrectAnswerColumn] = useState('');
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [commit, inFlight] = useMutation<NewEvaluationMutation>(mutation);
  const testset = testsets.find((candidate) => candidate.id === testsetId);

  if (apps.length === 0) return <Empty title="No app yet">Create an app and its variants before evaluating them.</Empty>;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // What GraphQL cannot carry is caught here: a global id must be one, an Int a whole number. The
    // API checks the rest (ranges, empty lists, foreign variants) and names the fields.
    const local = new Map<string, string[]>();
    if (!appId) local.set('app_id', ['Choose an app']);
    if (!testsetId) local.set('testset_id', ['Choose a test set']);
    for (const field of rateFields) {
      if (!/^-?\d+$/.test(rateLimit[field.key].trim())) local.set(`rate_limit.${field.key}`, ['Enter a whole number']);
    }
    setIssues(local);
    setFailure(null);
    if (local.size > 0) return;
    commit({
      variables: {
        input: {
          appId,
          testsetId,
          variantIds: choices.variantIds,
          evaluatorConfigIds: choices.configIds,
          rateLimit: Object.fromEntries(rateFields.map((field) => [field.camel, Number(rateLimit[field.key])])) as Record<
            (typeof rateFields)[number]['camel'],
            number
          >,
          ...(correctAnswerColumn ? { correctAnswerColumn } : {}),
        },
      },
      onCompleted: (response) => {
        const created = response.createEvaluations;
        navigate(created.length === 1 ? paths.evaluation(projectId, created[0].databaseId) : paths.evaluations(projectId));
      },
      onError,
    });
  };

  return (
    <section aria-labelledby="new-evaluation-title">
      <p className="breadcrumb">
        <Link to={paths.evaluations(projectId)}>Evaluations</Link> / new
      </p>
      <h1 id="new-evaluation-title">New evaluation</h1>
      <form className="form" onSubmit={submit} noValidate aria-label="New evaluation">
        <SelectField
          label="App"
          field="app_id"
          issues={issues}
          value={appId}
          onChange={(value) => {
            setAppId(value);
            setChoices({ variantIds: [], configIds: [] });
            if (value) loadAppQuery({ appId: value }, { fetchPolicy: 'store-and-network' });
          }}
          placeholder="Choose an app"
          options={appOptions(apps)}
        />
        {appId && appQueryRef && (
          <ErrorBoundary resetKey={appId}>
            <Suspense fallback={<Loading label="Loading the app's variants and configs…" />}>
              <AppChoices queryRef={appQueryRef} choices={choices} setChoices={setChoices} issues={issues} />
            </Suspense>
          </ErrorBoundary>
        )}
        <SelectField
          label="Test set"
          field="testset_id"
          issues={issues}
          value={testsetId}
          onChange={setTestsetId}
          placeholder="Choose a test set"
          options={testsetOptions(testsets)}
        />
        <SelectField
          label="Ground-truth column"
          field="correct_answer_column"
          issues={issues}
          value={correctAnswerColumn}
          onChange={setCorrectAnswerColumn}
          placeholder="correct_answer (the default)"
          options={(testset?.columns ?? []).map((column) => ({ value: column, label: column }))}
        />
        <fieldset>
          <legend>Rate limit</legend>
          {rateFields.map((field) => (
            <label key={field.key}>
              {field.label}
              <input
                inputMode="numeric"
                value={rateLimit[field.key]}
                {...invalidProps(issues, `rate_limit.${field.key}`)}
                onChange={(event) => setRateLimit({ ...rateLimit, [field.key]: event.target.value })}
              />
              <FieldIssues issues={issues} field={`rate_limit.${field.key}`} />
            </label>
          ))}
        </fieldset>
        <FormIssues issues={issues} fields={formFields} failure={failure} notice="The evaluation was not started: see the fields marked." />
        <div className="form-actions">
          <button type="submit" disabled={inFlight}>
            {inFlight ? 'Starting…' : 'Start evaluation'}
          </button>
        </div>
      </form>
    </section>
  );
}
