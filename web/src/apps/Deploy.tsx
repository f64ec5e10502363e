// Deploying a variant's revisions from its page (docs/ui.md#deploying): where each of the app's
// environments stands, a revision deployed to one of them (or to a new one) after a confirmation,
// and each environment's history with who deployed what and when; a rollback is a deployment of
// an older revision, from the history or the form.
import { useState } from 'react';
import { graphql, useRefetchableFragment } from 'react-relay';
import type { DeployCreateEnvironmentMutation } from '../__generated__/DeployCreateEnvironmentMutation.graphql.ts';
import type { DeployMutation } from '../__generated__/DeployMutation.graphql.ts';
import type { Deploy_app$key } from '../__generated__/Deploy_app.graphql.ts';
import { ConfirmButton, useActions, useCommit } from '../components/actions.tsx';
import { HeadRow } from '../components/states.tsx';
import { formatTime } from '../format.ts';
import '../components/admin.css';

const fragment = graphql`
  fragment Deploy_app on App @refetchable(queryName: "DeployRefetchQuery") {
    id
    environments {
      id
      name
      deployedAt
      revision {
        revision
        variant {
          id
          name
        }
      }
      deployments(first: 10) {
        edges {
          node {
            id
            actorType
            actorLabel
            createdAt
            revision {
              revision
              variant {
                id
                name
              }
            }
          }
        }
      }
    }
  }
`;

const deployMutation = graphql`
  mutation DeployMutation($appId: ID!, $environment: String!, $input: DeployInput!) {
    deploy(appId: $appId, environment: $environment, input: $input) {
      id
    }
  }
`;

const createEnvironmentMutation = graphql`
  mutation DeployCreateEnvironmentMutation($appId: ID!, $input: CreateEnvironmentInput!) {
    createEnvironment(appId: $appId, input: $input) {
      id
    }
  }
`;

const NEW = '\u0000new';

export function DeployPanel({ app, variant }: { app: Deploy_app$key; variant: { id: string; name: string; revisions: readonly { revision: number }[] } }) {
  const [data, refetch] = useRefetchableFragment(fragment, app);
  const { error, act } = useActions(() => refetch({}, { fetchPolicy: 'network-only' }));
  const [commitDeploy, deploying] = useCommit<DeployMutation>(deployMutation);
  const [commitCreate, creating] = useCommit<DeployCreateEnvironmentMutation>(createEnvironmentMutation);
  const newest = variant.revisions.at(-1)?.revision ?? 1;
  const [revision, setRevision] = useState(newest);
  const [environment, setEnvironment] = useState('production');
  const [newName, setNewName] = useState('');
  const target = environment === NEW ? newName.trim() : environment;
  const current = data.environments.find((candidate) => candidate.name === target);
  const serving = current?.revision ? `It serves ${current.revision.variant.name} v${current.revision.revision} now.` : 'Nothing is deployed there yet.';

  const deploy = (name: string, number: number, create: boolean) =>
    act(async () => {
      if (create) await commitCreate({ appId: data.id, input: { name } });
      await commitDeploy({ appId: data.id, environment: name, input: { variantId: variant.id, revision: number } });
      if (create) {
        setEnvironment(name);
        setNewName('');
      }
    });

  return (
    <section aria-labelledby="deploy-title">
      <h2 id="deploy-title">Deployments</h2>
      <table className="traces">
        <caption className="visually-hidden">Deployed where</caption>
        <HeadRow columns={['Environment', 'Serves', 'Deployed']} />
        <tbody>
          {data.environments.map((row) => (
            <tr key={row.id}>
              <td>{row.name}</td>
              <td>
                {row.revision ? (
                  `${row.revision.variant.name} v${row.revision.revision}${row.revision.variant.id === variant.id ? '' : ' (another variant)'}`
                ) : (
                  <span className="muted">nothing deployed</span>
                )}
              </td>
              <td>{row.deployedAt ? formatTime(row.deployedAt) : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="form-row" role="group" aria-label="Deploy a revision">
        <label>
          Revision
          <select value={revision} onChange={(event) => setRevision(Number(event.target.value))}>
            {[...variant.revisions].reverse().map((option) => (
              <option key={option.revision} value={option.revision}>
                v{option.revision}
              </option>
            ))}
          </select>
        </label>
        <label>
          Environment
          <select value={environment} onChange={(event) => setEnvironment(event.target.value)}>
            {data.environments.map((option) => (
              <option key={option.id} value={option.name}>
                {option.name}
              </option>
            ))}
            <option value={NEW}>New environment…</option>
          </select>
        </label>
        {environment === NEW && (
          <label>
            New environment name
            <input value={newName} onChange={(event) => setNewName(event.target.value)} placeholder="canary" />
          </label>
        )}
        <ConfirmButton
          label="Deploy"
          question={`Deploy ${variant.name} v${revision} to ${target || 'the new environment'}? ${serving}`}
          confirm={`Deploy v${revision}`}
          disabled={deploying || creating || target === ''}
          onConfirm={() => void deploy(target, revision, environment === NEW && !current)}
        />
      </div>
      {error && (
        <p className="error-text" role="alert">
          {Object.values(error.fields)[0] ?? error.message}
        </p>
      )}
      <h3>History</h3>
      <table className="traces">
        <caption className="visually-hidden">Deployment history</caption>
        <HeadRow columns={['Environment', 'Revision', 'By', 'When']} actions />
        <tbody>
          {data.environments.flatMap((row) =>
            row.deployments.edges.map(({ node }, index) => {
              // An older deployment of this variant, of a revision the environment does not serve now.
              const rollback =
                index > 0 &&
                node.revision.variant.id === variant.id &&
                (row.revision?.variant.id !== variant.id || row.revision.revision !== node.revision.revision);
              return (
                <tr key={node.id}>
                  <td>{row.name}</td>
                  <td>
                    {node.revision.variant.name} v{node.revision.revision}
                    {index === 0 && <span className="badge">current</span>}
                  </td>
                  <td>{node.actorLabel ?? <span className="muted">{node.actorType.toLowerCase()}</span>}</td>
                  <td>{formatTime(node.createdAt)}</td>
                  <td>
                    {rollback && (
                      <ConfirmButton
                        label={`Roll back to v${node.revision.revision}`}
                        question={`Deploy ${variant.name} v${node.revision.revision} to ${row.name} again?`}
                        confirm={`Roll back ${row.name}`}
                        disabled={deploying}
                        onConfirm={() => void deploy(row.name, node.revision.revision, false)}
                      />
                    )}
                  </td>
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
    </section>
  );
}
