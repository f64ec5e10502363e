// Apps (docs/ui.md#apps-variants-and-evaluator-configs): the list with a form to create one, and an
// app's page: its variants (each with its revisions), its evaluator configs and its test sets.
import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery, useMutation } from 'react-relay';
import type { AppsCreateMutation } from '../__generated__/AppsCreateMutation.graphql.ts';
import type { AppsListQuery } from '../__generated__/AppsListQuery.graphql.ts';
import type { AppsPageQuery } from '../__generated__/AppsPageQuery.graphql.ts';
import { FieldIssues, invalidProps, useFormIssues } from '../components/forms.tsx';
import { formatTime } from '../format.ts';
import { globalIdOf } from '../ids.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import '../evaluations/evaluations.css';

const listQuery = graphql`
  query AppsListQuery {
    apps(first: 100) {
      edges {
        node {
          id
          databaseId
          name
          createdAt
          variants(first: 100) {
            edges {
              node {
                id
              }
            }
          }
        }
      }
    }
  }
`;

const pageQuery = graphql`
  query AppsPageQuery($id: ID!) {
    app(id: $id) {
      databaseId
      name
      createdAt
      variants(first: 100) {
        edges {
          node {
            id
            databaseId
            name
            kind
            revision
            uri
            updatedAt
          }
        }
      }
    }
    evaluatorConfigs(appId: $id, first: 100) {
      edges {
        node {
          id
          databaseId
          name
          evaluatorKey
          updatedAt
        }
      }
    }
    testsets(appId: $id, first: 100) {
      edges {
        node {
          id
          databaseId
          name
          rowCount
        }
      }
    }
  }
`;

const createMutation = graphql`
  mutation AppsCreateMutation($input: CreateAppInput!) {
    createApp(input: $input) {
      id
      databaseId
    }
  }
`;

export function AppList({ projectId }: { projectId: string }) {
  const { navigate } = useRouter();
  const data = useLazyLoadQuery<AppsListQuery>(listQuery, {}, { fetchPolicy: 'store-and-network' });
  const apps = data.apps.edges.map((edge) => edge.node);
  const [name, setName] = useState('');
  const { issues, failure, onError, reset } = useFormIssues();
  const [commit, saving] = useMutation<AppsCreateMutation>(createMutation);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    reset();
    commit({
      variables: { input: { appName: name } },
      onCompleted: (response) => navigate(paths.app(projectId, response.createApp.databaseId)),
      onError,
    });
  };
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Apps</h1>
      {apps.length === 0 ? (
        <Empty title="No app yet">Create one below, then its variants.</Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Apps</caption>
          <HeadRow columns={['Name', 'Variants', 'Created']} numeric={['Variants']} />
          <tbody>
            {apps.map((app) => (
              <tr key={app.id}>
                <td>
                  <Link to={paths.app(projectId, app.databaseId)}>{app.name}</Link>
                </td>
                <td className="numeric">{app.variants.edges.length}</td>
                <td>{formatTime(app.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="form inline-form" onSubmit={submit} noValidate aria-label="New app">
        <label>
          New app's name
          <input value={name} {...invalidProps(issues, 'app_name')} onChange={(event) => setName(event.target.value)} />
          <FieldIssues issues={issues} field="app_name" />
        </label>
        {failure !== null && <ErrorMessage error={failure} />}
        <div className="form-actions">
          <button type="submit" disabled={saving}>
            Create the app
          </button>
        </div>
      </form>
    </section>
  );
}

export function AppPage({ projectId, appId }: { projectId: string; appId: string }) {
  const data = useLazyLoadQuery<AppsPageQuery>(pageQuery, { id: globalIdOf('App', appId) }, { fetchPolicy: 'store-and-network' });
  const app = data.app;
  if (!app)
    return (
      <Empty title="No such app">
        <Link to={paths.apps(projectId)}>See the apps</Link>
      </Empty>
    );
  const variants = app.variants.edges.map((edge) => edge.node);
  const configs = data.evaluatorConfigs.edges.map((edge) => edge.node);
  const testsets = data.testsets.edges.map((edge) => edge.node);
  return (
    <section aria-labelledby="app-title">
      <p className="breadcrumb">
        <Link to={paths.apps(projectId)}>Apps</Link> / {app.name}
      </p>
      <h1 id="app-title">{app.name}</h1>
      <h2>Variants</h2>
      {variants.length === 0 ? (
        <p className="muted">No variant yet: create one with POST /apps/{app.databaseId}/variants or the createVariant mutation.</p>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Variants</caption>
          <HeadRow columns={['Name', 'Kind', 'Revision', 'Endpoint', 'Changed']} numeric={['Revision']} />
          <tbody>
            {variants.map((variant) => (
              <tr key={variant.id}>
                <td>
                  <Link to={paths.variant(projectId, appId, variant.databaseId)}>{variant.name}</Link>
                </td>
                <td>{variant.kind.toLowerCase()}</td>
                <td className="numeric">{variant.revision}</td>
                <td className="small">{variant.uri ?? '–'}</td>
                <td>{formatTime(variant.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="screen-head">
        <h2>Evaluator configs</h2>
        <Link className="button-link" to={paths.newConfig(projectId, appId)}>
          New evaluator config
        </Link>
      </div>
      {configs.length === 0 ? (
        <p className="muted">No evaluator config yet.</p>
      ) : (
        <ul className="plain-list">
          {configs.map((config) => (
            <li key={config.id}>
              <Link to={paths.config(projectId, appId, config.databaseId)}>{config.name}</Link> <span className="muted small">{config.evaluatorKey}</span>
            </li>
          ))}
        </ul>
      )}
      <h2>Test sets filed under it</h2>
      {testsets.length === 0 ? (
        <p className="muted">
          None; <Link to={paths.testsets(projectId)}>every test set</Link> can be used.
        </p>
      ) : (
        <ul className="plain-list">
          {testsets.map((testset) => (
            <li key={testset.id}>
              <Link to={paths.testset(projectId, testset.databaseId)}>{testset.name}</Link> <span className="muted small">{testset.rowCount} cases</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
