// A variant (docs/ui.md#apps-variants-and-evaluator-configs): its revisions, their deployments
// (Deploy.tsx), a revision's traces (RevisionTraffic.tsx), the diff of parameters (and endpoint)
// between two of them and their production figures side by side, chosen in the URL (?from=&to=),
// and a form for a new revision.
import { Suspense, useMemo, useState, type FormEvent } from 'react';
import { graphql, useMutation, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { VariantPageQueries } from './entrypoints.ts';
import type { VariantPageMutation } from '../__generated__/VariantPageMutation.graphql.ts';
import type { VariantPageQuery } from '../__generated__/VariantPageQuery.graphql.ts';
import { FieldIssues, FormIssues, invalidProps, useFormIssues } from '../components/forms.tsx';
import { formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, HeadRow, Loading } from '../components/states.tsx';
import { DiffParts } from '../evaluations/TextDiff.tsx';
import { DeployPanel } from './Deploy.tsx';
import { RevisionComparison, RevisionTraffic } from './RevisionTraffic.tsx';
import { revisionDiff } from './revisions.ts';
import '../evaluations/evaluations.css';

const query = graphql`
  query VariantPageQuery($id: ID!) {
    variant(id: $id) {
      id
      name
      kind
      revision
      app {
        name
        environments {
          name
        }
        ...Deploy_app
      }
      revisions {
        id
        databaseId
        revision
        parameters
        uri
        createdAt
      }
    }
  }
`;

const mutation = graphql`
  mutation VariantPageMutation($id: ID!, $input: UpdateVariantParametersInput!) {
    updateVariantParameters(id: $id, input: $input) {
      id
      revision
      parameters
      uri
      revisions {
        id
        databaseId
        revision
        parameters
        uri
        createdAt
      }
    }
  }
`;

function RevisionDiff({
  before,
  after,
}: {
  before: { revision: number; parameters: unknown; uri?: string | null };
  after: { revision: number; parameters: unknown; uri?: string | null };
}) {
  const parts = useMemo(() => revisionDiff(before, after), [before, after]);
  const changed = parts.some((part) => part.added || part.removed);
  return (
    <div>
      {!changed && <p className="muted">The two revisions have the same parameters and endpoint.</p>}
      <pre className="json-diff" aria-label={`Changes from revision ${before.revision} to ${after.revision}`}>
        <DiffParts parts={parts} />
      </pre>
    </div>
  );
}

export function VariantPage({ route: { projectId, appId, variantId, from, to }, queries }: ScreenProps<RouteOf<'variant'>, VariantPageQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<VariantPageQuery>(query, queries.variant);
  const variant = data.variant;
  const latest = variant?.revisions.at(-1);
  const [parameters, setParameters] = useState(() => JSON.stringify(latest?.parameters ?? {}, null, 2));
  const [uri, setUri] = useState(latest?.uri ?? '');
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const [commit, saving] = useMutation<VariantPageMutation>(mutation);
  const [shown, setShown] = useState<number | null>(null);
  if (!variant || !latest)
    return (
      <Empty title="No such variant">
        <Link to={paths.app(projectId, appId)}>See the app</Link>
      </Empty>
    );
  const revisions = variant.revisions;
  const toRevision = revisions.find((revision) => revision.revision === to) ?? latest;
  const fromRevision = revisions.find((revision) => revision.revision === from) ?? revisions.at(-2) ?? latest;
  const shownRevision = revisions.find((revision) => revision.revision === shown) ?? latest;
  const pick = (nextFrom: number, nextTo: number) => navigate(paths.variant(projectId, appId, variantId, nextFrom, nextTo), { replace: true });
  const revisionPicker = (label: string, value: number, onPick: (revision: number) => void) => (
    <label>
      {label}
      <select value={value} onChange={(event) => onPick(Number(event.target.value))}>
        {revisions.map((revision) => (
          <option key={revision.id} value={revision.revision}>
            v{revision.revision}
          </option>
        ))}
      </select>
    </label>
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(parameters);
    } catch (error) {
      setIssues(new Map([['parameters', [`Not valid JSON: ${(error as Error).message}`]]]));
      return;
    }
    setIssues(new Map());
    commit({
      variables: { id: variant.id, input: { parameters: parsed, ...(variant.kind === 'ENDPOINT' && uri ? { uri } : {}) } },
      onCompleted: (response) => pick(latest.revision, response.updateVariantParameters.revision),
      onError,
    });
  };
  return (
    <section aria-labelledby="variant-title">
      <p className="breadcrumb">
        <Link to={paths.apps(projectId)}>Apps</Link> / <Link to={paths.app(projectId, appId)}>{variant.app.name}</Link> / {variant.name}
      </p>
      <h1 id="variant-title">
        {variant.name} <span className="badge">{variant.kind.toLowerCase()}</span>
      </h1>
      {variant.kind === 'PROMPT' && (
        <p>
          <Link to={paths.playground(projectId, [latest.databaseId])}>Open v{latest.revision} in the playground</Link>
        </p>
      )}
      <table className="traces">
        <caption className="visually-hidden">Revisions</caption>
        <HeadRow columns={['Revision', 'Endpoint', 'Made']} />
        <tbody>
          {[...revisions].reverse().map((revision) => (
            <tr key={revision.id}>
              <td>v{revision.revision}</td>
              <td className="small">{revision.uri ?? '–'}</td>
              <td>{formatTime(revision.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <DeployPanel app={variant.app} variant={variant} />
      <h2>Traces of a revision</h2>
      <div className="form-row">{revisionPicker('Show revision', shownRevision.revision, setShown)}</div>
      <Suspense fallback={<Loading label="Loading the revision's traces…" />}>
        <RevisionTraffic
          projectId={projectId}
          revisionId={shownRevision.id}
          revision={shownRevision.revision}
          environments={variant.app.environments.map((environment) => environment.name)}
        />
      </Suspense>
      <h2>Changes between two revisions</h2>
      <div className="form-row">
        {revisionPicker('From', fromRevision.revision, (revision) => pick(revision, toRevision.revision))}
        {revisionPicker('To', toRevision.revision, (revision) => pick(fromRevision.revision, revision))}
      </div>
      {variant.kind === 'PROMPT' && fromRevision.revision !== toRevision.revision && (
        <p>
          <Link to={paths.playground(projectId, [fromRevision.databaseId, toRevision.databaseId])}>
            Open v{fromRevision.revision} and v{toRevision.revision} side by side in the playground
          </Link>
        </p>
      )}
      <RevisionDiff before={fromRevision} after={toRevision} />
      {fromRevision.id !== toRevision.id && (
        <Suspense fallback={<Loading label="Loading both revisions' production figures…" />}>
          <RevisionComparison before={fromRevision} after={toRevision} />
        </Suspense>
      )}
      <h2>New revision</h2>
      <form className="form" onSubmit={submit} noValidate aria-label="New revision">
        {variant.kind === 'ENDPOINT' && (
          <label>
            Endpoint URL
            <input type="url" value={uri} {...invalidProps(issues, 'uri')} onChange={(event) => setUri(event.target.value)} />
            <FieldIssues issues={issues} field="uri" />
          </label>
        )}
        <label>
          Parameters (JSON)
          <textarea
            className="code"
            rows={10}
            spellCheck={false}
            value={parameters}
            {...invalidProps(issues, 'parameters')}
            onChange={(event) => setParameters(event.target.value)}
          />
          <FieldIssues issues={issues} field="parameters" />
        </label>
        <FormIssues issues={issues} fields={['parameters', 'uri']} failure={failure} />
        <div className="form-actions">
          <button type="submit" disabled={saving}>
            Save as v{variant.revision + 1}
          </button>
        </div>
      </form>
    </section>
  );
}
