// Starting evaluations (docs/ui.md#evaluations): an app, its variants (one evaluation each), a test
// set, the app's evaluator configs and a rate limit, sent as `createEvaluations`; the API checks
// everything and a refusal's faults appear beside their fields.
import { Suspense, useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery, useMutation } from 'react-relay';
import type { NewEvaluationAppQuery } from '../__generated__/NewEvaluationAppQuery.graphql.ts';
import type { NewEvaluationMutation } from '../__generated__/NewEvaluationMutation.graphql.ts';
import type { NewEvaluationQuery } from '../__generated__/NewEvaluationQuery.graphql.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorBoundary, Loading } from '../components/states.tsx';
import { ChecksField, FieldIssues, FormIssues, invalidProps, namedOptions, SelectField, useFormIssues } from '../components/forms.tsx';
import './evaluations.css';

const query = graphql`
  query NewEvaluationQuery {
    ...NewEvaluation_choices @relay(mask: false)
  }
`;

// The apps and test sets a new evaluation (or a human one, HumanEvaluations.tsx) chooses from;
// spread unmasked (`@relay(mask: false)`), so no component reads it as a fragment.
export const choicesFragment = graphql`
  fragment NewEvaluation_choices on Query {
    apps(first: 100) {
      edges {
        node {
          id
          name
        }
      }
    }
    testsets(first: 100) {
      edges {
        node {
          id
          name
          rowCount
          columns
        }
      }
    }
  }
`;

export const appOptions = (apps: readonly { id: string; name: string }[]) => apps.map((app) => ({ value: app.id, label: app.name }));
export const testsetOptions = (testsets: readonly { id: string; name: string; rowCount: number }[]) =>
  testsets.map((testset) => ({ value: testset.id, label: `${testset.name} (${testset.rowCount} cases)` }));

// An app's variants to choose from, here and for a human evaluation (HumanEvaluations.tsx); spread
// unmasked like the choices above.
export const variantsFragment = graphql`
  fragment NewEvaluation_variants on App {
    variants(first: 100) {
      edges {
        node {
          id
          name
          kind
          revision
        }
      }
    }
  }
`;

const appQuery = graphql`
  query NewEvaluationAppQuery($appId: ID!) {
    app(id: $appId) {
      ...NewEvaluation_variants @relay(mask: false)
    }
    evaluatorConfigs(appId: $appId, first: 100) {
      edges {
        node {
          id
          name
          evaluatorKey
        }
      }
    }
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

function AppChoices({
  appId,
  choices,
  setChoices,
  issues,
}: {
  appId: string;
  choices: Choices;
  setChoices: (next: Choices) => void;
  issues: Map<string, string[]>;
}) {
  const data = useLazyLoadQuery<NewEvaluationAppQuery>(appQuery, { appId }, { fetchPolicy: 'store-and-network' });
  const variants = data.app?.variants.edges.map((edge) => edge.node) ?? [];
  const configs = data.evaluatorConfigs.edges.map((edge) => edge.node);
  return (
    <>
      <ChecksField
        legend="Variants (one evaluation each)"
        field="variant_ids"
        issues={issues}
        empty="The app has no variant yet."
        options={namedOptions(variants, (variant) => `v${variant.revision}, ${variant.kind.toLowerCase()}`)}
        chosen={choices.variantIds}
        onChange={(variantIds) => setChoices({ ...choices, variantIds })}
      />
      <ChecksField
        legend="Evaluator configs"
        field="evaluators_configs"
        issues={issues}
        empty="The app has no evaluator config yet."
        options={namedOptions(configs, (config) => config.evaluatorKey)}
        chosen={choices.configIds}
        onChange={(configIds) => setChoices({ ...choices, configIds })}
      />
    </>
  );
}

export function NewEvaluation({ projectId }: { projectId: string }) {
  const { navigate } = useRouter();
  const data = useLazyLoadQuery<NewEvaluationQuery>(query, {}, { fetchPolicy: 'store-and-network' });
  const apps = data.apps.edges.map((edge) => edge.node);
  const testsets = data.testsets.edges.map((edge) => edge.node);
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
          }}
          placeholder="Choose an app"
          options={appOptions(apps)}
        />
        {appId && (
          <ErrorBoundary resetKey={appId}>
            <Suspense fallback={<Loading label="Loading the app's variants and configs…" />}>
              <AppChoices appId={appId} choices={choices} setChoices={setChoices} issues={issues} />
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
