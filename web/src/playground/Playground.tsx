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
import type { PlaygroundRunSubscription, PlaygroundRunSubscription$data } from '../__generated__/PlaygroundRunSubscription.graphql.ts';
import type { PlaygroundSaveMutation } from '../__generated__/PlaygroundSaveMutation.graphql.ts';
import type { PlaygroundDeployMutation } from '../__generated__/PlaygroundDeployMutation.graphql.ts';
import { useCommit, refusalOf } from '../components/actions.tsx';
import { Figures } from '../components/states.tsx';
import { formatCost, formatCount, formatDuration } from '../format.ts';
import { placeholders, variablesFrom, type PromptMessage } from './prompt.ts';
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

type Loaded = PlaygroundQuery['response'];
type VariantInfo = Extract<Loaded['nodes'][number], { __typename: 'VariantRevision' }>['variant'];
type RevisionInfo = VariantInfo['revisions'][number];
type RunEvent = PlaygroundRunSubscription$data['runPrompt'];

/** The most columns side by side. */
const MAX_COLUMNS = 4;

interface Run {
  output: string;
  running: boolean;
  error: string | null;
  end: RunEvent | null;
}

/** One column: the prompt as edited, the revision it came from, and its last run. */
interface Column {
  key: number;
  variant: VariantInfo | null;
  base: RevisionInfo | null;
  model: string;
  messages: PromptMessage[];
  /** The other parameters (temperature, max_tokens, …), kept as the revision had them. */
  settings: Record<string, unknown>;
  run: Run | null;
  notice: string | null;
}

let nextKey = 1;

function columnOf(variant: VariantInfo | null, base: RevisionInfo | null): Column {
  const { model, messages, ...settings } = (base?.parameters ?? {}) as { model?: string; messages?: PromptMessage[] } & Record<string, unknown>;
  return {
    key: nextKey++,
    variant,
    base,
    model: model ?? 'gpt-4o-mini',
    messages: messages?.map((message) => ({ role: message.role, content: message.content })) ?? [{ role: 'user', content: '' }],
    settings,
    run: null,
    notice: null,
  };
}

function parametersOf(column: Column): Record<string, unknown> {
  return { ...column.settings, model: column.model, messages: column.messages };
}

/** Whether the column's prompt differs from the revision it came from. */
function edited(column: Column): boolean {
  if (!column.base) return false;
  const { model, messages, ...settings } = column.base.parameters as { model?: string; messages?: PromptMessage[] } & Record<string, unknown>;
  const saved = { ...settings, model, messages: messages?.map((message) => ({ role: message.role, content: message.content })) };
  return JSON.stringify(parametersOf(column)) !== JSON.stringify(saved);
}

function titleOf(column: Column, index: number): string {
  if (!column.variant || !column.base) return `Prompt ${index + 1}`;
  return `${column.variant.name} v${column.base.revision}${edited(column) ? ' (edited)' : ''}`;
}

const roles = ['system', 'user', 'assistant', 'developer'] as const;

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
      if (copied) setColumns((all) => [...all, { ...copied, key: nextKey++, run: null, notice: null }]);
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

function ColumnView({
  column,
  title,
  changed,
  projectId,
  canRemove,
  onChange,
  onRun,
  onRemove,
  onSave,
  onDeploy,
}: {
  column: Column;
  title: string;
  /** Edited since its revision: deploying would deploy the revision, not the edit, so it is saved first. */
  changed: boolean;
  projectId: string;
  canRemove: boolean;
  onChange: (change: Partial<Column>) => void;
  onRun: () => void;
  onRemove: () => void;
  onSave: () => void;
  onDeploy: (environment: string) => void;
}) {
  const [target, setTarget] = useState('production');
  const { run, variant, base } = column;
  const end = run?.end;
  const setMessage = (index: number, change: Partial<PromptMessage>) =>
    onChange({ messages: column.messages.map((message, at) => (at === index ? { ...message, ...change } : message)) });
  return (
    <section className="playground-column" aria-label={title}>
      <header>
        <h2>{title}</h2>
        {variant && (
          <p className="small muted">
            {variant.app.name} / <Link to={paths.variant(projectId, variant.app.databaseId, variant.databaseId)}>{variant.name}</Link>
          </p>
        )}
      </header>
      <label>
        Model
        <input value={column.model} onChange={(event) => onChange({ model: event.target.value })} spellCheck={false} />
      </label>
      {column.messages.map((message, index) => (
        <div className="playground-message" key={index}>
          <label>
            Role of message {index + 1}
            <select aria-label={`Role of message ${index + 1}`} value={message.role} onChange={(event) => setMessage(index, { role: event.target.value })}>
              {roles.map((role) => (
                <option key={role}>{role}</option>
              ))}
            </select>
          </label>
          <label>
            Message {index + 1}
            <textarea
              aria-label={`Message ${index + 1}`}
              className="code"
              rows={3}
              value={message.content}
              onChange={(event) => setMessage(index, { content: event.target.value })}
            />
          </label>
          {column.messages.length > 1 && (
            <button type="button" className="link-button" onClick={() => onChange({ messages: column.messages.filter((_, at) => at !== index) })}>
              Remove message {index + 1}
            </button>
          )}
        </div>
      ))}
      <div className="form-actions">
        <button type="button" className="link-button" onClick={() => onChange({ messages: [...column.messages, { role: 'user', content: '' }] })}>
          Add a message
        </button>
        {canRemove && (
          <button type="button" className="link-button" onClick={onRemove}>
            Remove this column
          </button>
        )}
      </div>
      <div className="form-actions">
        <button type="button" onClick={onRun} disabled={run?.running}>
          {run?.running ? 'Running…' : 'Run'}
        </button>
      </div>
      <div className="playground-output" aria-label={`Answer of ${title}`} aria-live="polite" aria-busy={run?.running ?? false}>
        {run ? run.output || (run.running ? '…' : '') : <span className="muted">Not run yet.</span>}
      </div>
      {run?.error && (
        <p className="error-text" role="alert">
          {run.error}
        </p>
      )}
      {end && (
        <>
          <Figures
            label={`Figures of ${title}`}
            figures={[
              ['Tokens in', formatCount(end.tokens?.promptTokens)],
              ['Tokens out', formatCount(end.tokens?.completionTokens)],
              ['Cost', formatCost(end.cost)],
              ['Latency', formatDuration(end.latency)],
            ]}
          />
          {end.traceId && (
            <p className="small">
              <Link to={paths.trace(projectId, end.traceId)}>Its trace</Link> · {end.model}
            </p>
          )}
        </>
      )}
      {variant && (
        <div className="form-actions">
          <button type="button" onClick={onSave}>
            Save as v{Math.max(...variant.revisions.map((r) => r.revision)) + 1}
          </button>
          {base && (
            <>
              <label>
                Environment
                <select value={target} onChange={(event) => setTarget(event.target.value)}>
                  {variant.app.environments.map((env) => (
                    <option key={env.name}>{env.name}</option>
                  ))}
                </select>
              </label>
              <button
                type="button"
                onClick={() => onDeploy(target)}
                disabled={changed}
                title={changed ? 'Save the edit first: deploying takes a saved revision' : undefined}
              >
                Deploy v{base.revision}
              </button>
            </>
          )}
        </div>
      )}
      {column.notice && (
        <p className="notice" role="status">
          {column.notice}
        </p>
      )}
    </section>
  );
}
