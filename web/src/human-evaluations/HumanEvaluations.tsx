// Human evaluations (docs/ui.md#human-evaluation): the list, and a form to create one (an A/B test
// of two variants or a single model test, over a test set, with the columns judges see); the API
// checks it and its 422 faults appear beside their fields.
import { Suspense, useState, type FormEvent } from 'react';
import { graphql, useFragment, useMutation, usePaginationFragment, usePreloadedQuery, useQueryLoader, type PreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { HumanEvaluationListQueries } from './entrypoints.ts';
import type { AppChoices_query$key } from '../__generated__/AppChoices_query.graphql.ts';
import type { HumanEvaluationsAppQuery } from '../__generated__/HumanEvaluationsAppQuery.graphql.ts';
import type { HumanEvaluationsCreateMutation } from '../__generated__/HumanEvaluationsCreateMutation.graphql.ts';
import type { HumanEvaluationsList_query$key } from '../__generated__/HumanEvaluationsList_query.graphql.ts';
import type { HumanEvaluationsListPaginationQuery } from '../__generated__/HumanEvaluationsListPaginationQuery.graphql.ts';
import type { HumanEvaluationsListQuery } from '../__generated__/HumanEvaluationsListQuery.graphql.ts';
import type { HumanEvaluationsRow_evaluation$key } from '../__generated__/HumanEvaluationsRow_evaluation.graphql.ts';
import type { TestsetChoices_query$key } from '../__generated__/TestsetChoices_query.graphql.ts';
import type { VariantChoices_app$key } from '../__generated__/VariantChoices_app.graphql.ts';
import { appOptions, useAppChoices, useVariantChoices } from '../apps/choices.ts';
import { useEveryPage } from '../connections.ts';
import { ChecksField, FormIssues, namedOptions, SelectField, useFormIssues } from '../components/forms.tsx';
import { statusLabel } from '../evaluations/results.ts';
import { formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { testsetOptions, useTestsetChoices } from '../testsets/choices.ts';
import { Empty, ErrorMessage, HeadRow, Loading } from '../components/states.tsx';
import '../evaluations/evaluations.css';

const listQuery = graphql`
  query HumanEvaluationsListQuery {
    ...HumanEvaluationsList_query
    ...AppChoices_query
    ...TestsetChoices_query
  }
`;

// Every human evaluation, newest first: read backwards from the newest, a page at a time.
const listFragment = graphql`
  fragment HumanEvaluationsList_query on Query
  @refetchable(queryName: "HumanEvaluationsListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    humanEvaluations(last: $count, before: $cursor) @connection(key: "HumanEvaluationsList_humanEvaluations") {
      edges {
        node {
          id
          ...HumanEvaluationsRow_evaluation
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment HumanEvaluationsRow_evaluation on HumanEvaluation {
    databaseId
    evaluationType
    variantNames
    testsetName
    status
    createdAt
    progress {
      done
      total
    }
    statistics {
      judgedScenarios
      scenarios
      judges
    }
  }
`;

// Asked when an app is chosen: its variants.
const appQuery = graphql`
  query HumanEvaluationsAppQuery($appId: ID!) {
    app(id: $appId) {
      ...VariantChoices_app
    }
  }
`;

const createMutation = graphql`
  mutation HumanEvaluationsCreateMutation($input: CreateHumanEvaluationInput!) {
    createHumanEvaluation(input: $input) {
      id
      databaseId
    }
  }
`;

type EvaluationType = 'HUMAN_A_B_TESTING' | 'SINGLE_MODEL_TEST';

type VariantProps = { chosen: string[]; setChosen: (next: string[]) => void; issues: Map<string, string[]> };

function VariantChecks({ app, chosen, setChosen, issues }: VariantProps & { app: VariantChoices_app$key }) {
  const { variants } = useVariantChoices(app);
  return (
    <ChecksField
      legend="Variants (two for an A/B test, one for a single model test)"
      field="variant_ids"
      issues={issues}
      empty="The app has no variant yet."
      options={namedOptions(variants, (variant) => `v${variant.revision}`)}
      chosen={chosen}
      onChange={setChosen}
    />
  );
}

function Variants({ queryRef, ...props }: VariantProps & { queryRef: PreloadedQuery<HumanEvaluationsAppQuery> }) {
  const { app } = usePreloadedQuery<HumanEvaluationsAppQuery>(appQuery, queryRef);
  return app ? <VariantChecks app={app} {...props} /> : <p className="muted">The app has no variant yet.</p>;
}

function CreateForm({ projectId, query }: { projectId: string; query: AppChoices_query$key & TestsetChoices_query$key }) {
  const { navigate } = useRouter();
  const { apps } = useAppChoices(query);
  const { testsets } = useTestsetChoices(query);
  const [appQueryRef, loadAppQuery] = useQueryLoader<HumanEvaluationsAppQuery>(appQuery);
  const [type, setType] = useState<EvaluationType>('HUMAN_A_B_TESTING');
  const [appId, setAppId] = useState('');
  const [variantIds, setVariantIds] = useState<string[]>([]);
  const [testsetId, setTestsetId] = useState('');
  const [inputs, setInputs] = useState<string[]>([]);
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [commit, saving] = useMutation<HumanEvaluationsCreateMutation>(createMutation);
  const testset = testsets.find((candidate) => candidate.id === testsetId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    // A global id must be one to be sent; the API checks everything else and names the field.
    const local = new Map<string, string[]>();
    if (!appId) local.set('app_id', ['Choose an app']);
    if (!testsetId) local.set('testset_id', ['Choose a test set']);
    setIssues(local);
    if (local.size > 0) return;
    commit({
      variables: { input: { appId, testsetId, variantIds, inputs, evaluationType: type } },
      onCompleted: (response) => navigate(paths.humanEvaluation(projectId, response.createHumanEvaluation.databaseId)),
      onError,
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="New human evaluation">
      <h2>New human evaluation</h2>
      <fieldset className="checks">
        <legend>Kind</legend>
        <label>
          <input type="radio" name="human-type" checked={type === 'HUMAN_A_B_TESTING'} onChange={() => setType('HUMAN_A_B_TESTING')} />
          A/B test: judges pick the better of two outputs
        </label>
        <label>
          <input type="radio" name="human-type" checked={type === 'SINGLE_MODEL_TEST'} onChange={() => setType('SINGLE_MODEL_TEST')} />
          Single model: judges score each output from 0 to 100
        </label>
      </fieldset>
      <SelectField
        label="App"
        field="app_id"
        issues={issues}
        value={appId}
        onChange={(value) => {
          setAppId(value);
          setVariantIds([]);
          if (value) loadAppQuery({ appId: value }, { fetchPolicy: 'store-and-network' });
        }}
        placeholder="Choose an app"
        options={appOptions(apps)}
      />
      {appId && appQueryRef && (
        <Suspense fallback={<Loading label="Loading the app's variants…" />}>
          <Variants queryRef={appQueryRef} chosen={variantIds} setChosen={setVariantIds} issues={issues} />
        </Suspense>
      )}
      <SelectField
        label="Test set"
        field="testset_id"
        issues={issues}
        value={testsetId}
        onChange={(value) => {
          setTestsetId(value);
          const columns = testsets.find((candidate) => candidate.id === value)?.columns ?? [];
          setInputs(columns.filter((column) => column !== 'correct_answer'));
        }}
        placeholder="Choose a test set"
        options={testsetOptions(testsets)}
      />
      {testset && (
        <ChecksField
          legend="Columns judges see (and the variants are sent)"
          field="inputs"
          issues={issues}
          options={testset.columns.map((column) => ({ value: column, label: column }))}
          chosen={inputs}
          onChange={setInputs}
        />
      )}
      <FormIssues issues={issues} fields={['app_id', 'variant_ids', 'testset_id', 'inputs', 'evaluation_type']} failure={failure} />
      <div className="form-actions">
        <button type="submit" disabled={saving}>
          Create the human evaluation
        </button>
      </div>
    </form>
  );
}

function HumanEvaluationRow({ projectId, evaluation: key }: { projectId: string; evaluation: HumanEvaluationsRow_evaluation$key }) {
  const evaluation = useFragment(rowFragment, key);
  return (
    <tr>
      <td>
        <Link to={paths.humanEvaluation(projectId, evaluation.databaseId)}>{evaluation.variantNames.join(' vs ')}</Link>
      </td>
      <td>{evaluation.evaluationType === 'HUMAN_A_B_TESTING' ? 'A/B test' : 'single model'}</td>
      <td>{evaluation.testsetName}</td>
      <td>
        {evaluation.progress.done}/{evaluation.progress.total} <span className="muted small">{statusLabel(evaluation.status)}</span>
      </td>
      <td>
        {evaluation.statistics.judgedScenarios}/{evaluation.statistics.scenarios} by {evaluation.statistics.judges.length} judges
      </td>
      <td>{formatTime(evaluation.createdAt)}</td>
    </tr>
  );
}

export function HumanEvaluationList({ route: { projectId }, queries }: ScreenProps<RouteOf<'human-evaluations'>, HumanEvaluationListQueries>) {
  const root = usePreloadedQuery<HumanEvaluationsListQuery>(listQuery, queries.list);
  const { data, hasPrevious, isLoadingPrevious, loadPrevious } = usePaginationFragment<HumanEvaluationsListPaginationQuery, HumanEvaluationsList_query$key>(
    listFragment,
    root,
  );
  const pages = useEveryPage(hasPrevious, isLoadingPrevious, loadPrevious);
  const evaluations = [...data.humanEvaluations.edges].reverse().map((edge) => edge.node);
  return (
    <section aria-labelledby="human-title">
      <h1 id="human-title">Human evaluations</h1>
      {evaluations.length === 0 ? (
        <Empty title="No human evaluation yet">Create one below.</Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Human evaluations, newest first</caption>
          <HeadRow columns={['Variants', 'Kind', 'Test set', 'Outputs', 'Judged', 'Created']} />
          <tbody>
            {evaluations.map((evaluation) => (
              <HumanEvaluationRow key={evaluation.id} projectId={projectId} evaluation={evaluation} />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
      <CreateForm projectId={projectId} query={root} />
    </section>
  );
}
