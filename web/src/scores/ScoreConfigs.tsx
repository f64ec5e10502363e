// Score configs (docs/ui.md#administration, docs/scores.md#score-configs): what a score of a name
// may hold. The list (archived ones marked), a form to create one, another to change one (its data
// type never changes), and archiving: configs are never deleted, so old scores keep their meaning.
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, usePaginationFragment, usePreloadedQuery } from 'react-relay';
import type { ScoreConfigs_query$key } from '../__generated__/ScoreConfigs_query.graphql.ts';
import type { ScoreConfigsCreateMutation } from '../__generated__/ScoreConfigsCreateMutation.graphql.ts';
import type { ScoreConfigsPaginationQuery } from '../__generated__/ScoreConfigsPaginationQuery.graphql.ts';
import type { ScoreConfigsQuery } from '../__generated__/ScoreConfigsQuery.graphql.ts';
import type { ScoreConfigsRow_config$data, ScoreConfigsRow_config$key } from '../__generated__/ScoreConfigsRow_config.graphql.ts';
import type { ScoreConfigsUpdateMutation } from '../__generated__/ScoreConfigsUpdateMutation.graphql.ts';
import { useActions, useCommit } from '../components/actions.tsx';
import { Field, FormError } from '../components/forms.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { useEveryPage } from '../connections.ts';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { ScoreConfigsQueries } from './entrypoints.ts';
import { categoriesText, configForm, emptyForm, formOf, type ConfigForm } from './configForm.ts';
import type { PanelConfig } from './panel.ts';
import { readScoreConfig } from './traceScores.ts';
import './scores.css';

const query = graphql`
  query ScoreConfigsQuery {
    ...ScoreConfigs_query
  }
`;

// Every config, archived ones too, read whole (docs/ui.md#lists).
const listFragment = graphql`
  fragment ScoreConfigs_query on Query
  @refetchable(queryName: "ScoreConfigsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    scoreConfigs(first: $count, after: $cursor) @connection(key: "ScoreConfigs_scoreConfigs") {
      edges {
        node {
          id
          ...ScoreConfigsRow_config
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment ScoreConfigsRow_config on ScoreConfig {
    isArchived
    ...traceScores_scoreConfig
  }
`;

const createMutation = graphql`
  mutation ScoreConfigsCreateMutation($input: ScoreConfigInput!) {
    createScoreConfig(input: $input) {
      id
    }
  }
`;

const updateMutation = graphql`
  mutation ScoreConfigsUpdateMutation($id: ID!, $input: ScoreConfigPatchInput!) {
    updateScoreConfig(id: $id, input: $input) {
      id
      ...ScoreConfigsRow_config
    }
  }
`;

type Config = PanelConfig & Pick<ScoreConfigsRow_config$data, 'isArchived'>;
type Refusal = ReturnType<typeof useActions>['error'];

function valueText(config: Config): string {
  if (config.dataType === 'NUMERIC') {
    if (config.minValue == null && config.maxValue == null) return 'any number';
    return `${config.minValue ?? '−∞'} to ${config.maxValue ?? '∞'}`;
  }
  return categoriesText(config.categories);
}

function ConfigRow({
  config: key,
  editing,
  onEdit,
  onArchive,
}: {
  config: ScoreConfigsRow_config$key;
  editing: boolean;
  onEdit: (config: Config) => void;
  onArchive: (config: Config) => void;
}) {
  const row = useFragment(rowFragment, key);
  const config: Config = { ...readScoreConfig(row), isArchived: row.isArchived };
  return (
    <tr className={config.isArchived ? 'muted' : undefined}>
      <th scope="row">{config.name}</th>
      <td>{config.dataType.toLowerCase()}</td>
      <td>{valueText(config)}</td>
      <td className="small">{config.description ?? ''}</td>
      <td>{config.isArchived ? 'archived' : 'active'}</td>
      <td>
        <button type="button" className="link-button" aria-pressed={editing} onClick={() => onEdit(config)}>
          Edit <span className="visually-hidden">{config.name}</span>
        </button>{' '}
        <button type="button" className="link-button" onClick={() => onArchive(config)}>
          {config.isArchived ? 'Restore' : 'Archive'} <span className="visually-hidden">{config.name}</span>
        </button>
      </td>
    </tr>
  );
}

/** The fields of a config; the data type only when creating one. */
function ConfigFields({ form, onChange, error, withType }: { form: ConfigForm; onChange: (form: ConfigForm) => void; error: Refusal; withType: boolean }) {
  const set = (change: Partial<ConfigForm>) => onChange({ ...form, ...change });
  return (
    <>
      <div className="inline-fields">
        <Field label="Name" value={form.name} onChange={(event) => set({ name: event.target.value })} required error={error?.fields.name} />
        {withType && (
          <div className="field">
            <label htmlFor="score-config-type">Data type</label>
            <select id="score-config-type" value={form.dataType} onChange={(event) => set({ dataType: event.target.value as ConfigForm['dataType'] })}>
              <option value="NUMERIC">Number</option>
              <option value="BOOLEAN">True or false</option>
              <option value="CATEGORICAL">Categories</option>
            </select>
          </div>
        )}
        {form.dataType === 'NUMERIC' && (
          <>
            <Field
              label="Least value"
              inputMode="decimal"
              value={form.minValue}
              onChange={(event) => set({ minValue: event.target.value })}
              error={error?.fields.min_value}
            />
            <Field
              label="Greatest value"
              inputMode="decimal"
              value={form.maxValue}
              onChange={(event) => set({ maxValue: event.target.value })}
              error={error?.fields.max_value}
            />
          </>
        )}
      </div>
      {form.dataType === 'CATEGORICAL' && (
        <Field
          label="Categories"
          hint="label=value, separated by commas: bad=0, fine=1, great=2"
          value={form.categories}
          onChange={(event) => set({ categories: event.target.value })}
          error={error?.fields.categories ?? error?.fields.label ?? error?.fields.value}
        />
      )}
      <Field label="Description" value={form.description} onChange={(event) => set({ description: event.target.value })} error={error?.fields.description} />
    </>
  );
}

export function ScoreConfigs({ queries }: ScreenProps<RouteOf<'admin'>, ScoreConfigsQueries>) {
  const { data, hasNext, isLoadingNext, loadNext, refetch } = usePaginationFragment<ScoreConfigsPaginationQuery, ScoreConfigs_query$key>(
    listFragment,
    usePreloadedQuery<ScoreConfigsQuery>(query, queries.configs),
  );
  const pages = useEveryPage(hasNext, isLoadingNext, loadNext);
  const configs = data.scoreConfigs.edges;
  const { error, act } = useActions(() => refetch({ count: Math.max(100, configs.length) }, { fetchPolicy: 'store-and-network' }));
  const [create, creating] = useCommit<ScoreConfigsCreateMutation>(createMutation);
  const [update, updating] = useCommit<ScoreConfigsUpdateMutation>(updateMutation);
  const [form, setForm] = useState<ConfigForm>(emptyForm);
  const [editing, setEditing] = useState<{ id: string; name: string; form: ConfigForm } | null>(null);
  const [local, setLocal] = useState<{ at: 'create' | 'edit'; message: string } | null>(null);
  const [lastAt, setLastAt] = useState<'create' | 'edit' | 'list'>('create');

  const submitCreate = (event: FormEvent) => {
    event.preventDefault();
    const input = configForm(form);
    if (typeof input === 'string') return setLocal({ at: 'create', message: input });
    setLocal(null);
    setLastAt('create');
    void act(async () => {
      await create({ input: { ...input, dataType: form.dataType } });
      setForm(emptyForm);
    });
  };
  const submitEdit = (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    const input = configForm(editing.form);
    if (typeof input === 'string') return setLocal({ at: 'edit', message: input });
    setLocal(null);
    setLastAt('edit');
    void act(async () => {
      await update({ id: editing.id, input });
      setEditing(null);
    });
  };
  const archive = (config: Config) => {
    setLastAt('list');
    void act(() => update({ id: config.id, input: { isArchived: !config.isArchived } }));
  };
  const errorAt = (at: typeof lastAt) => (lastAt === at ? error : null);
  // A form's message: what to fix before sending, else a refusal that names no field.
  const formMessage = (at: 'create' | 'edit') => {
    if (local?.at === at) return local.message;
    const refusal = errorAt(at);
    return refusal && Object.keys(refusal.fields).length === 0 ? refusal.message : null;
  };

  return (
    <>
      <p className="muted">
        What a score of a name may hold: the score panels of the trace page offer each active config, and the API refuses a score that names a config and does
        not fit it. Archived configs take no new scores; they are never deleted, so old scores keep their meaning.
      </p>
      {configs.length === 0 ? (
        <Empty title="No score config yet">Create one below.</Empty>
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">Score configs</caption>
          <HeadRow columns={['Name', 'Data type', 'Values', 'Description', 'State']} actions />
          <tbody>
            {configs.map(({ node }) => (
              <ConfigRow
                key={node.id}
                config={node}
                editing={editing?.id === node.id}
                onEdit={(config) => setEditing(editing?.id === config.id ? null : { id: config.id, name: config.name, form: formOf(config) })}
                onArchive={archive}
              />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
      <FormError message={errorAt('list')?.message ?? null} />
      {editing && (
        <form className="admin-form" onSubmit={submitEdit} aria-label="Change the score config">
          <h2>Change {editing.name}</h2>
          <ConfigFields form={editing.form} onChange={(next) => setEditing({ ...editing, form: next })} error={errorAt('edit')} withType={false} />
          <FormError message={formMessage('edit')} />
          <button type="submit" disabled={updating}>
            Save changes
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      <form className="admin-form" onSubmit={submitCreate} aria-label="New score config">
        <h2>New score config</h2>
        <ConfigFields form={form} onChange={setForm} error={errorAt('create')} withType />
        <FormError message={formMessage('create')} />
        <button type="submit" disabled={creating}>
          Create score config
        </button>
      </form>
    </>
  );
}
