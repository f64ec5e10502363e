// One column of the playground (docs/ui.md#playground): its model and messages to edit, its run's
// answer as it streams and its figures, and saving and deploying it.
import { useState } from 'react';
import { Link, paths } from '../router.tsx';
import { Figures } from '../components/states.tsx';
import { formatCost, formatCount, formatDuration } from '../format.ts';
import type { Column } from './columns.ts';
import type { PromptMessage } from './prompt.ts';

const roles = ['system', 'user', 'assistant', 'developer'] as const;

export function ColumnView({
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
