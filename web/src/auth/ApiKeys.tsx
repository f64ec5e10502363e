// API keys (docs/ui.md#administration): the project's keys by prefix and last use; a new key's
// secret is shown once (the API never shows it again); revoking asks first.
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, usePreloadedQuery, useRefetchableFragment } from 'react-relay';
import type { ApiKeys_query$key } from '../__generated__/ApiKeys_query.graphql.ts';
import type { ApiKeysCreateMutation } from '../__generated__/ApiKeysCreateMutation.graphql.ts';
import type { ApiKeysQuery } from '../__generated__/ApiKeysQuery.graphql.ts';
import type { ApiKeysRow_apiKey$key } from '../__generated__/ApiKeysRow_apiKey.graphql.ts';
import type { ApiKeysRevokeMutation } from '../__generated__/ApiKeysRevokeMutation.graphql.ts';
import { formatTime } from '../format.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { ConfirmButton, CopyOnce, useActions, useCommit } from '../components/actions.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { ApiKeysQueries } from './entrypoints.ts';

const query = graphql`
  query ApiKeysQuery {
    ...ApiKeys_query
  }
`;

// A list, not a connection: the API answers every key at once. Read anew after each change.
const listFragment = graphql`
  fragment ApiKeys_query on Query @refetchable(queryName: "ApiKeysRefetchQuery") {
    apiKeys {
      id
      ...ApiKeysRow_apiKey
    }
  }
`;

const rowFragment = graphql`
  fragment ApiKeysRow_apiKey on ApiKey {
    id
    name
    prefix
    scopes
    createdAt
    lastUsedAt
  }
`;

const create = graphql`
  mutation ApiKeysCreateMutation($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      key
      apiKey {
        id
        prefix
      }
    }
  }
`;

const revoke = graphql`
  mutation ApiKeysRevokeMutation($id: ID!) {
    revokeApiKey(id: $id)
  }
`;

const scopes = ['READ', 'WRITE', 'INGEST', 'ADMIN', 'FEEDBACK'] as const;
const scopeHints: Record<(typeof scopes)[number], string> = {
  READ: 'queries',
  WRITE: 'changes',
  INGEST: 'sending spans',
  ADMIN: 'keys and members',
  FEEDBACK: 'only writing scores, for a web page',
};

function ApiKeyRow({ apiKey, onRevoke }: { apiKey: ApiKeysRow_apiKey$key; onRevoke: (id: string) => void }) {
  const key = useFragment(rowFragment, apiKey);
  return (
    <tr>
      <td>{key.name}</td>
      <td>
        <code>{key.prefix}…</code>
      </td>
      <td>{key.scopes.map((scope) => scope.toLowerCase()).join(', ')}</td>
      <td>{formatTime(key.createdAt)}</td>
      <td>{key.lastUsedAt ? formatTime(key.lastUsedAt) : <span className="muted">never</span>}</td>
      <td>
        <ConfirmButton
          label="Revoke"
          question={`Revoke ${key.name} (${key.prefix}…)? Programs using it stop at once.`}
          confirm="Revoke key"
          onConfirm={() => onRevoke(key.id)}
        />
      </td>
    </tr>
  );
}

export function ApiKeys({ queries }: ScreenProps<RouteOf<'admin'>, ApiKeysQueries>) {
  const [{ apiKeys }, refetch] = useRefetchableFragment(listFragment, usePreloadedQuery<ApiKeysQuery>(query, queries.keys) as ApiKeys_query$key);
  const { error, act } = useActions(() => refetch({}, { fetchPolicy: 'store-and-network' }));
  const [commitCreate, creating] = useCommit<ApiKeysCreateMutation>(create);
  const [commitRevoke] = useCommit<ApiKeysRevokeMutation>(revoke);
  const [secret, setSecret] = useState<{ key: string; prefix: string } | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    void act(async () => {
      const answer = await commitCreate({ input: { name: formText(form, 'name'), scopes: form.getAll('scope') as (typeof scopes)[number][] } });
      setSecret({ key: answer.createApiKey.key, prefix: answer.createApiKey.apiKey.prefix });
      formElement.reset();
    });
  };

  const onRevoke = (id: string) => act(() => commitRevoke({ id }));

  return (
    <>
      <form className="admin-form" onSubmit={(event) => void submit(event)} aria-label="New API key">
        <h2>New key</h2>
        <Field label="Name" name="name" required placeholder="otel-collector" error={error?.fields.name} />
        <fieldset aria-describedby={error?.fields.scopes ? 'scopes-error' : undefined}>
          <legend>Scopes</legend>
          {scopes.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" name="scope" value={scope} defaultChecked={scope === 'READ'} /> {scope.toLowerCase()}{' '}
              <span className="muted small">({scopeHints[scope]})</span>
            </label>
          ))}
          {error?.fields.scopes && (
            <span id="scopes-error" className="error-text">
              {error.fields.scopes}
            </span>
          )}
        </fieldset>
        <FormError message={error && Object.keys(error.fields).length === 0 ? error.message : null} />
        <button type="submit" disabled={creating}>
          Create key
        </button>
      </form>
      {secret && <CopyOnce label={`New key ${secret.prefix}…`} value={secret.key} onDone={() => setSecret(null)} />}
      {apiKeys.length === 0 ? (
        <Empty title="No API keys yet">Programs and exporters authenticate with one: create it above.</Empty>
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">The project's API keys</caption>
          <HeadRow columns={['Name', 'Prefix', 'Scopes', 'Created', 'Last used']} actions />
          <tbody>
            {apiKeys.map((key) => (
              <ApiKeyRow key={key.id} apiKey={key} onRevoke={(id) => void onRevoke(id)} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
