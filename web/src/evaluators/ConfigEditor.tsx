// An evaluator config, new or saved (docs/ui.md#evaluator-configs): its evaluator, its name and a
// settings form built from the evaluator's template; the API checks it and its 422 faults appear
// beside their fields.
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, useMutation, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { EditConfigQueries, NewConfigQueries } from './entrypoints.ts';
import type { ConfigEditor_evaluators$key } from '../__generated__/ConfigEditor_evaluators.graphql.ts';
import type { ConfigEditorCreateMutation } from '../__generated__/ConfigEditorCreateMutation.graphql.ts';
import type { ConfigEditorEditQuery } from '../__generated__/ConfigEditorEditQuery.graphql.ts';
import type { ConfigEditorNewQuery } from '../__generated__/ConfigEditorNewQuery.graphql.ts';
import type { ConfigEditorUpdateMutation } from '../__generated__/ConfigEditorUpdateMutation.graphql.ts';
import { FieldIssues, FormIssues, invalidProps, SelectField, useFormIssues } from '../components/forms.tsx';
import { globalIdOf } from '../ids.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty } from '../components/states.tsx';
import { initialDraft, settingsValues, type Draft } from './settings.ts';
import { SettingsForm } from './SettingsForm.tsx';
import '../evaluations/evaluations.css';

// The evaluators a config's form offers (every one for a new config, its own for a saved one), each
// with the template its settings form is built from.
const evaluatorsFragment = graphql`
  fragment ConfigEditor_evaluators on Evaluator @relay(plural: true) {
    key
    name
    description
    requiresLlmApiKeys
    settingsTemplate {
      name
      label
      description
      type
      required
      default
      min
      max
      options
    }
  }
`;

const newQuery = graphql`
  query ConfigEditorNewQuery($appId: ID!) {
    app(id: $appId) {
      databaseId
      name
    }
    evaluators {
      ...ConfigEditor_evaluators
    }
  }
`;

const editQuery = graphql`
  query ConfigEditorEditQuery($id: ID!) {
    evaluatorConfig(id: $id) {
      id
      name
      evaluatorKey
      settingsValues
      app {
        databaseId
        name
      }
      evaluator {
        ...ConfigEditor_evaluators
      }
    }
  }
`;

const createMutation = graphql`
  mutation ConfigEditorCreateMutation($input: CreateEvaluatorConfigInput!) {
    createEvaluatorConfig(input: $input) {
      id
      databaseId
    }
  }
`;

const updateMutation = graphql`
  mutation ConfigEditorUpdateMutation($id: ID!, $input: UpdateEvaluatorConfigInput!) {
    updateEvaluatorConfig(id: $id, input: $input) {
      id
      name
      settingsValues
      updatedAt
    }
  }
`;

function ConfigForm({
  evaluators: key,
  initial,
  saving,
  issues,
  failure,
  saved,
  onSubmit,
}: {
  evaluators: ConfigEditor_evaluators$key;
  initial: { name: string; evaluatorKey: string; values: Record<string, unknown> } | null;
  saving: boolean;
  issues: Map<string, string[]>;
  failure: unknown;
  saved: boolean;
  onSubmit: (name: string, evaluatorKey: string, values: Record<string, unknown>) => void;
}) {
  const evaluators = useFragment(evaluatorsFragment, key);
  const [name, setName] = useState(initial?.name ?? '');
  const [evaluatorKey, setEvaluatorKey] = useState(initial?.evaluatorKey ?? '');
  const evaluator = evaluators.find((candidate) => candidate.key === evaluatorKey);
  const [draft, setDraft] = useState<Draft>(() => initialDraft(evaluator?.settingsTemplate ?? [], initial?.values));
  const choose = (key: string) => {
    setEvaluatorKey(key);
    setDraft(initialDraft(evaluators.find((candidate) => candidate.key === key)?.settingsTemplate ?? []));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(name, evaluatorKey, settingsValues(evaluator?.settingsTemplate ?? [], draft));
  };
  const fields = ['name', 'evaluator_key', ...(evaluator?.settingsTemplate.map((setting) => `settings_values.${setting.name}`) ?? [])];
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Evaluator config">
      <label>
        Name
        <input value={name} {...invalidProps(issues, 'name')} onChange={(event) => setName(event.target.value)} />
        <FieldIssues issues={issues} field="name" />
      </label>
      <SelectField
        label="Evaluator"
        field="evaluator_key"
        issues={issues}
        value={evaluatorKey}
        disabled={initial !== null}
        onChange={choose}
        placeholder="Choose an evaluator"
        options={evaluators.map((candidate) => ({ value: candidate.key, label: candidate.name }))}
      >
        {evaluator && (
          <span className="muted small">
            {evaluator.description}
            {evaluator.requiresLlmApiKeys ? ' Calls a model provider: evaluations need its key.' : ''}
          </span>
        )}
      </SelectField>
      {evaluator && (
        <fieldset>
          <legend>Settings</legend>
          {evaluator.settingsTemplate.length === 0 && <p className="muted">This evaluator has no settings.</p>}
          <SettingsForm template={evaluator.settingsTemplate} draft={draft} onChange={setDraft} issues={issues} />
        </fieldset>
      )}
      <FormIssues issues={issues} fields={fields} failure={failure} notice="Not saved: see the fields marked." />
      {saved && issues.size === 0 && failure === null && (
        <p role="status" className="muted">
          Saved.
        </p>
      )}
      <div className="form-actions">
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

export function NewConfig({ route: { projectId, appId }, queries }: ScreenProps<RouteOf<'config-new'>, NewConfigQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<ConfigEditorNewQuery>(newQuery, queries.form);
  const [commit, saving] = useMutation<ConfigEditorCreateMutation>(createMutation);
  const { issues, failure, onError, reset } = useFormIssues();
  if (!data.app) return <Empty title="No such app" />;
  return (
    <section aria-labelledby="config-title">
      <p className="breadcrumb">
        <Link to={paths.apps(projectId)}>Apps</Link> / <Link to={paths.app(projectId, appId)}>{data.app.name}</Link> / new evaluator config
      </p>
      <h1 id="config-title">New evaluator config</h1>
      <ConfigForm
        evaluators={data.evaluators}
        initial={null}
        saving={saving}
        issues={issues}
        failure={failure}
        saved={false}
        onSubmit={(name, evaluatorKey, values) => {
          reset();
          commit({
            variables: { input: { appId: globalIdOf('App', appId), name, evaluatorKey, settingsValues: values } },
            onCompleted: (response) => navigate(paths.config(projectId, appId, response.createEvaluatorConfig.databaseId)),
            onError,
          });
        }}
      />
    </section>
  );
}

export function EditConfig({ route: { projectId, appId }, queries }: ScreenProps<RouteOf<'config'>, EditConfigQueries>) {
  const data = usePreloadedQuery<ConfigEditorEditQuery>(editQuery, queries.form);
  const [commit, saving] = useMutation<ConfigEditorUpdateMutation>(updateMutation);
  const [saved, setSaved] = useState(false);
  const { issues, failure, onError, reset } = useFormIssues();
  const config = data.evaluatorConfig;
  if (!config) return <Empty title="No such evaluator config" />;
  return (
    <section aria-labelledby="config-title">
      <p className="breadcrumb">
        <Link to={paths.apps(projectId)}>Apps</Link> / <Link to={paths.app(projectId, appId)}>{config.app.name}</Link> / {config.name}
      </p>
      <h1 id="config-title">Evaluator config {config.name}</h1>
      <ConfigForm
        evaluators={config.evaluator ? [config.evaluator] : []}
        initial={{ name: config.name, evaluatorKey: config.evaluatorKey, values: (config.settingsValues ?? {}) as Record<string, unknown> }}
        saving={saving}
        issues={issues}
        failure={failure}
        saved={saved}
        onSubmit={(name, _key, values) => {
          reset();
          setSaved(false);
          commit({ variables: { id: config.id, input: { name, settingsValues: values } }, onCompleted: () => setSaved(true), onError });
        }}
      />
    </section>
  );
}
