// The playground (docs/ui.md#playground): one to four prompts side by side (revisions of prompt
// variants, edits of them, or prompts started empty), their variables filled by hand, from a test
// case or from a trace's input, each run streamed from the server (`runPrompt`, the provider's
// keys never reach the browser) with its tokens, cost and latency; a column is saved as a new
// revision of its variant and deployed to an environment.
import { useState } from 'react';
import { fetchQuery, graphql, requestSubscription, usePreloadedQuery, useRelayEnvironment } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import { Link, paths } from '../router.tsx';
import type { PlaygroundQueries } from './entrypoints.ts';
import type { PlaygroundQuery } from '../__generated__/PlaygroundQuery.graphql.ts';
import type { PlaygroundRowsQuery } from '../__generated__/PlaygroundRowsQuery.graphql.ts';
import type { PlaygroundTraceQuery } from '../__generated__/PlaygroundTraceQuery.graphql.ts';
import type { PlaygroundRunSubscription } from '../__generated__/PlaygroundRunSubscription.graphql.ts';
import type { PlaygroundSaveMutation } from '../__generated__/PlaygroundSaveMutation.graphql.ts';
import type { PlaygroundDeployMutation } from '../__generated__/PlaygroundDeployMutation.graphql.ts';
import { useCommit, refusalOf } from '../components/actions.tsx';
import { ColumnView } from './ColumnView.tsx';
import { type Column, columnOf, edited, MAX_COLUMNS, newKey, parametersOf, titleOf } from './columns.ts';
import { placeholders, variablesFrom } from './prompt.ts';
import './playground.css';

const query = graphql`
  query PlaygroundQuery($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      ... on VariantRevision {
        id
        databaseId
        revision
        parameters
        variant {
          ...Playground_variant @relay(mask: false)
        }
      }
    }
    testsets(first: 100) {
      edges {
        node {
          id
          name
        }
      }
    }
  }
`;

/** What a column knows of its variant, spread unmasked where a revision is read and where a save answers. */
export const variantFields = graphql`
  fragment Playground_variant on Variant {
    id
    databaseId
    name
    kind
    app {
      id
      databaseId
      name
      environments {
        name
      }
    }
    revisions {
      id
      databaseId
      revision
      parameters
    }
  }
`;

const rowsQuery = graphql`
  query PlaygroundRowsQuery($id: ID!) {
    node(id: $id) {
      ... on Testset {
        rows(first: 100) {
          edges {
            node {
              position
              data
            }
          }
        }
      }
    }
  }
`;

const traceQuery = graphql`
  query PlaygroundTraceQuery($traceId: String!) {
    trace(traceId: $traceId) {
      root {
        content {
          inputs
        }
      }
    }
  }
`;

const runSubscription = graphql`
  subscription PlaygroundRunSubscription($input: RunPromptInput!) {
    runPrompt(input: $input) {
      delta
      finished
      output
      error
      model
      tokens {
        promptTokens
        completionTokens
      }
      cost
      latency
      traceId
    }
  }
`;

const saveMutation = graphql`
  mutation PlaygroundSaveMutation($id: ID!, $input: UpdateVariantParametersInput!) {
    updateVariantParameters(id: $id, input: $input) {
      ...Playground_variant @relay(mask: false)
    }
  }
`;

const deployMutation = graphql`
  mutation PlaygroundDeployMutation($appId: ID!, $environment: String!, $input: DeployInput!) {
    deploy(appId: $appId, environment: $environment, input: $input) {
      name
      revision {
        revision
      }
    }
  }
`;

export function Playground({ route: { projectId }, queries }: ScreenProps<RouteOf<'playground'>, PlaygroundQueries>) {
  const environment = useRelayEnvironment();
  const data = usePreloadedQuery<PlaygroundQuery>(query, queries.playground);
  const opened = data.nodes.flatMap((node) => (node?.__typename === 'VariantRevision' ? [node] : []));
  const [columns, setColumns] = useState<Column[]>(() =>
    opened.length > 0
      ? opened.slice(0, MAX_COLUMNS).map((node) => columnOf(node.variant, node.variant.revisions.find((r) => r.id === node.id) ?? null))
      : [columnOf(null, null)],
  );
  const [values, setValues] = useState<Record<string, string>>({});
  const [sourceNote, setSourceNote] = useState<string | null>(null);
  const [testsetId, setTestsetId] = useState('');
  const [rows, setRows] = useState<{ position: number; data: unknown }[]>([]);
  const [traceId, setTraceId] = useState('');
  const [save] = useCommit<PlaygroundSaveMutation>(saveMutation);
  const [deploy] = useCommit<PlaygroundDeployMutation>(deployMutation);

  const names = placeholders(columns.flatMap((column) => column.messages));
  const variants = new Map(columns.flatMap((column) => (column.variant ? [[column.variant.id, column.variant] as const] : [])));
  const update = (key: number, change: (column: Column) => Partial<Column>) =>
    setColumns((all) => all.map((column) => (column.key === key ? { ...column, ...change(column) } : column)));

  const fill = (source: unknown, from: string) => {
    const found = variablesFrom(source, names);
    setValues((current) => ({ ...current, ...found }));
    setSourceNote(Object.keys(found).length ? `Filled ${Object.keys(found).join(', ')} from ${from}.` : `${from} has none of this prompt's variables.`);
  };

  const pickTestset = (id: string) => {
    setTestsetId(id);
    setRows([]);
    if (!id) return;
    fetchQuery<PlaygroundRowsQuery>(environment, rowsQuery, { id }).subscribe({
      next: (answer) => setRows(answer.node?.rows?.edges.map((edge) => edge.node) ?? []),
      error: (error: unknown) => setSourceNote(refusalOf(error).message),
    });
  };

  const takeTrace = () => {
    fetchQuery<PlaygroundTraceQuery>(environment, traceQuery, { traceId: traceId.trim() }).subscribe({
      next: (answer) =>
        answer.trace
          ? fill(answer.trace.root?.content.inputs ?? null, `trace ${traceId.trim()}`)
          : setSourceNote(`No trace ${traceId.trim()} in this project.`),
      error: (error: unknown) => setSourceNote(refusalOf(error).message),
    });
  };

  const run = (column: Column) => {
    update(column.key, () => ({ run: { output: '', running: true, error: null, end: null }, notice: null }));
    const variables = Object.fromEntries(names.map((name) => [name, values[name] ?? '']));
    requestSubscription<PlaygroundRunSubscription>(environment, {
      subscription: runSubscription,
      variables: { input: { revisionId: column.base?.id ?? null, parameters: parametersOf(column), variables } },
      onNext: (answer) => {
        const event = answer?.runPrompt;
        if (!event) return;
        update(column.key, ({ run: current }) => ({
          run: event.finished
            ? { output: event.output ?? current?.output ?? '', running: false, error: event.error ?? null, end: event }
            : { output: (current?.output ?? '') + event.delta, running: true, error: null, end: null },
        }));
      },
      onError: (error) =>
        update(column.key, ({ run: current }) => ({ run: { output: current?.output ?? '', running: false, error: refusalOf(error).message, end: null } })),
      // A stream closed without its last event (the server went away) must not look like a run still going.
      onCompleted: () =>
        update(column.key, ({ run: current }) =>
          current?.running ? { run: { ...current, running: false, error: current.error ?? 'The answer stopped before its end' } } : {},
        ),
    });
  };

  const saveColumn = async (column: Column) => {
    if (!column.variant) return;
    try {
      const answer = await save({ id: column.variant.id, input: { parameters: parametersOf(column), message: 'Saved from the playground' } });
      const variant = answer.updateVariantParameters;
      const base = variant.revisions.at(-1) ?? null;
      update(column.key, () => ({ variant, base, notice: `Saved as v${base?.revision}.` }));
    } catch (error) {
      update(column.key, () => ({ notice: refusalOf(error).message }));
    }
  };

  const deployColumn = async (column: Column, environmentName: string) => {
    if (!column.variant || !column.base) return;
    try {
      const answer = await deploy({
        appId: column.variant.app.id,
        environment: environmentName,
        input: { variantId: column.variant.id, revision: column.base.revision },
      });
      update(column.key, () => ({ notice: `v${answer.deploy.revision?.revision} deployed to ${answer.deploy.name}.` }));
    } catch (error) {
      update(column.key, () => ({ notice: refusalOf(error).message }));
    }
  };

  const addColumn = (choice: string) => {
    if (columns.length >= MAX_COLUMNS) return;
    if (choice === 'empty') return setColumns((all) => [...all, columnOf(null, null)]);
    if (choice.startsWith('copy:')) {
      const copied = columns.find((column) => String(column.key) === choice.slice(5));
      if (copied) setColumns((all) => [...all, { ...copied, key: newKey(), run: null, notice: null }]);
      return;
    }
    for (const variant of variants.values()) {
      const revision = variant.revisions.find((r) => r.id === choice);
      if (revision) return setColumns((all) => [...all, columnOf(variant, revision)]);
    }
  };

  return (
    <section aria-labelledby="playground-title" className="playground">
      <h1 id="playground-title">Playground</h1>
      <p className="muted">
        Runs go through the server with its provider keys and are traced in the environment <code>playground</code> (
        <Link to={paths.traces(projectId, '?environment=playground')}>see them</Link>).
      </p>

      <fieldset className="playground-variables">
        <legend>Variables</legend>
        {names.length === 0 && (
          <p className="muted">
            The prompts have no {'{{variable}}'} or {'{column}'} placeholder.
          </p>
        )}
        <div className="form-row">
          {names.map((name) => (
            <label key={name}>
              {name}
              <input value={values[name] ?? ''} onChange={(event) => setValues((current) => ({ ...current, [name]: event.target.value }))} />
            </label>
          ))}
        </div>
        <div className="form-row">
          <label>
            Test set
            <select value={testsetId} onChange={(event) => pickTestset(event.target.value)}>
              <option value="">Choose a test set…</option>
              {data.testsets.edges.map(({ node }) => (
                <option key={node.id} value={node.id}>
                  {node.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Test case
            <select
              value=""
              disabled={rows.length === 0}
              onChange={(event) => fill(rows[Number(event.target.value)]?.data, `test case ${Number(event.target.value) + 1}`)}
            >
              <option value="">Fill from a test case…</option>
              {rows.map((row, index) => (
                <option key={row.position} value={index}>
                  {index + 1}: {JSON.stringify(row.data).slice(0, 60)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Trace id
            <input value={traceId} onChange={(event) => setTraceId(event.target.value)} spellCheck={false} />
          </label>
          <button type="button" disabled={!traceId.trim()} onClick={takeTrace}>
            Fill from the trace&apos;s input
          </button>
        </div>
        {sourceNote && (
          <p className="muted" role="status">
            {sourceNote}
          </p>
        )}
      </fieldset>

      <div className="form-actions">
        <button type="button" onClick={() => columns.forEach(run)} disabled={columns.some((column) => column.run?.running)}>
          Run all
        </button>
        <label>
          Add a column
          <select value="" disabled={columns.length >= MAX_COLUMNS} onChange={(event) => addColumn(event.target.value)}>
            <option value="">{columns.length >= MAX_COLUMNS ? `At most ${MAX_COLUMNS} columns` : 'Choose…'}</option>
            <option value="empty">Empty prompt</option>
            {columns.map((column, index) => (
              <option key={column.key} value={`copy:${column.key}`}>
                Copy of {titleOf(column, index)} (to try another model)
              </option>
            ))}
            {[...variants.values()].flatMap((variant) =>
              variant.revisions.map((revision) => (
                <option key={revision.id} value={revision.id}>
                  {variant.name} v{revision.revision}
                </option>
              )),
            )}
          </select>
        </label>
      </div>

      <div className="playground-columns">
        {columns.map((column, index) => (
          <ColumnView
            key={column.key}
            column={column}
            title={titleOf(column, index)}
            changed={edited(column)}
            projectId={projectId}
            canRemove={columns.length > 1}
            onChange={(change) => update(column.key, () => change)}
            onRun={() => run(column)}
            onRemove={() => setColumns((all) => all.filter((other) => other.key !== column.key))}
            onSave={() => void saveColumn(column)}
            onDeploy={(name) => void deployColumn(column, name)}
          />
        ))}
      </div>
    </section>
  );
}
