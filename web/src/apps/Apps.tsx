// Apps (docs/ui.md#apps-variants-and-evaluator-configs): the list with a form to create one, and an
// app's page: its variants (each with its revisions), its evaluator configs and its test sets.
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, useMutation, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { AppListQueries, AppPageQueries } from './entrypoints.ts';
import type { AppsConfigs_query$key } from '../__generated__/AppsConfigs_query.graphql.ts';
import type { AppsConfigsPaginationQuery } from '../__generated__/AppsConfigsPaginationQuery.graphql.ts';
import type { AppsCreateMutation } from '../__generated__/AppsCreateMutation.graphql.ts';
import type { AppsList_query$key } from '../__generated__/AppsList_query.graphql.ts';
import type { AppsListPaginationQuery } from '../__generated__/AppsListPaginationQuery.graphql.ts';
import type { AppsListQuery } from '../__generated__/AppsListQuery.graphql.ts';
import type { AppsPageQuery } from '../__generated__/AppsPageQuery.graphql.ts';
import type { AppsRow_app$key } from '../__generated__/AppsRow_app.graphql.ts';
import type { AppsTestsets_query$key } from '../__generated__/AppsTestsets_query.graphql.ts';
import type { AppsTestsetsPaginationQuery } from '../__generated__/AppsTestsetsPaginationQuery.graphql.ts';
import type { AppsVariants_app$key } from '../__generated__/AppsVariants_app.graphql.ts';
import type { AppsVariantsPaginationQuery } from '../__generated__/AppsVariantsPaginationQuery.graphql.ts';
import { FieldIssues, invalidProps, useFormIssues } from '../components/forms.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { useWholeConnection } from '../connections.ts';
import { formatCount, formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import '../evaluations/evaluations.css';

const listQuery = graphql`
  query AppsListQuery {
    ...AppsList_query
  }
`;

const listFragment = graphql`
  fragment AppsList_query on Query
  @refetchable(queryName: "AppsListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    apps(first: $count, after: $cursor) @connection(key: "AppsList_apps") {
      edges {
        node {
          id
          ...AppsRow_app
        }
      }
    }
  }
`;

// The variants counted by the API, none of them read (`first: 0`).
const rowFragment = graphql`
  fragment AppsRow_app on App {
    databaseId
    name
    createdAt
    variants(first: 0) {
      totalCount
    }
  }
`;

const pageQuery = graphql`
  query AppsPageQuery($id: ID!) {
    app(id: $id) {
      name
      ...AppsVariants_app
    }
    ...AppsConfigs_query @arguments(appId: $id)
    ...AppsTestsets_query @arguments(appId: $id)
  }
`;

const variantsFragment = graphql`
  fragment AppsVariants_app on App
  @refetchable(queryName: "AppsVariantsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    databaseId
    variants(first: $count, after: $cursor) @connection(key: "AppsVariants_variants") {
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
`;

const configsFragment = graphql`
  fragment AppsConfigs_query on Query
  @refetchable(queryName: "AppsConfigsPaginationQuery")
  @argumentDefinitions(appId: { type: "ID!" }, count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    evaluatorConfigs(appId: $appId, first: $count, after: $cursor) @connection(key: "AppsConfigs_evaluatorConfigs") {
      edges {
        node {
          id
          databaseId
          name
          evaluatorKey
        }
      }
    }
  }
`;

const testsetsFragment = graphql`
  fragment AppsTestsets_query on Query
  @refetchable(queryName: "AppsTestsetsPaginationQuery")
  @argumentDefinitions(appId: { type: "ID!" }, count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    testsets(appId: $appId, first: $count, after: $cursor) @connection(key: "AppsTestsets_testsets") {
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

function AppRow({ projectId, app: key }: { projectId: string; app: AppsRow_app$key }) {
  const app = useFragment(rowFragment, key);
  return (
    <tr>
      <td>
        <Link to={paths.app(projectId, app.databaseId)}>{app.name}</Link>
      </td>
      <td className="numeric">{formatCount(app.variants.totalCount)}</td>
      <td>{formatTime(app.createdAt)}</td>
    </tr>
  );
}

export function AppList({ route: { projectId }, queries }: ScreenProps<RouteOf<'apps'>, AppListQueries>) {
  const { navigate } = useRouter();
  const root = usePreloadedQuery<AppsListQuery>(listQuery, queries.list);
  const { data, pages } = useWholeConnection<AppsListPaginationQuery, AppsList_query$key>(listFragment, root);
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
              <AppRow key={app.id} projectId={projectId} app={app} />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
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

function Variants({ projectId, appId, app }: { projectId: string; appId: string; app: AppsVariants_app$key }) {
  const { data, pages } = useWholeConnection<AppsVariantsPaginationQuery, AppsVariants_app$key>(variantsFragment, app);
  const variants = data.variants.edges.map((edge) => edge.node);
  return (
    <>
      <h2>Variants</h2>
      {variants.length === 0 ? (
        <p className="muted">No variant yet: create one with POST /apps/{data.databaseId}/variants or the createVariant mutation.</p>
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
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
    </>
  );
}

function Configs({ projectId, appId, query }: { projectId: string; appId: string; query: AppsConfigs_query$key }) {
  const { data, pages } = useWholeConnection<AppsConfigsPaginationQuery, AppsConfigs_query$key>(configsFragment, query);
  const configs = data.evaluatorConfigs.edges.map((edge) => edge.node);
  return (
    <>
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
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
    </>
  );
}

function Testsets({ projectId, query }: { projectId: string; query: AppsTestsets_query$key }) {
  const { data, pages } = useWholeConnection<AppsTestsetsPaginationQuery, AppsTestsets_query$key>(testsetsFragment, query);
  const testsets = data.testsets.edges.map((edge) => edge.node);
  return (
    <>
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
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
    </>
  );
}

export function AppPage({ route: { projectId, appId }, queries }: ScreenProps<RouteOf<'app'>, AppPageQueries>) {
  const data = usePreloadedQuery<AppsPageQuery>(pageQuery, queries.app);
  const app = data.app;
  if (!app)
    return (
      <Empty title="No such app">
        <Link to={paths.apps(projectId)}>See the apps</Link>
      </Empty>
    );
  return (
    <section aria-labelledby="app-title">
      <p className="breadcrumb">
        <Link to={paths.apps(projectId)}>Apps</Link> / {app.name}
      </p>
      <h1 id="app-title">{app.name}</h1>
      <Variants projectId={projectId} appId={appId} app={app} />
      <Configs projectId={projectId} appId={appId} query={data} />
      <Testsets projectId={projectId} query={data} />
    </section>
  );
}
