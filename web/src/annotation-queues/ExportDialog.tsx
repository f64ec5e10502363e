// A queue's reviewed items exported to a test set (docs/annotation-queues.md#export): an existing
// set or a new one, the columns read from each item's span by JSONPath, the expected answer's
// column (where the reviewers' corrections go); Preview shows the rows before anything is written.
import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { ExportDialogMutation, ExportDialogMutation$data } from '../__generated__/ExportDialogMutation.graphql.ts';
import type { ExportDialogQuery } from '../__generated__/ExportDialogQuery.graphql.ts';
import { useCommit } from '../components/actions.tsx';
import { FieldIssues, FormIssues, invalidProps, SelectField, useFormIssues } from '../components/forms.tsx';
import { Link, paths } from '../router.tsx';
import { testsetOptions, useTestsetChoices } from '../testsets/choices.ts';

const query = graphql`
  query ExportDialogQuery {
    ...TestsetChoices_query
  }
`;

const mutation = graphql`
  mutation ExportDialogMutation($id: ID!, $input: AnnotationQueueExportInput!) {
    exportAnnotationQueue(id: $id, input: $input) {
      testset {
        databaseId
        name
      }
      matched
      capped
      skipped
      revision {
        number
      }
      rows {
        data
        sourceTraceId
        sourceSpanId
      }
    }
  }
`;

type Made = { preview: boolean; result: ExportDialogMutation$data['exportAnnotationQueue'] };
const NEW = '__new__';

const cell = (value: unknown) => (value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value));

export function ExportDialog({ projectId, queueId, targetType, onClose }: { projectId: string; queueId: string; targetType: string; onClose: () => void }) {
  const { testsets } = useTestsetChoices(useLazyLoadQuery<ExportDialogQuery>(query, {}, { fetchPolicy: 'store-and-network' }));
  const [destination, setDestination] = useState(NEW);
  const [newName, setNewName] = useState('');
  const [mapping, setMapping] = useState<{ column: string; path: string }[]>([
    { column: 'input', path: '$.input' },
    { column: 'output', path: '$.output' },
  ]);
  const [expected, setExpected] = useState('correct_answer');
  const [made, setMade] = useState<Made | null>(null);
  const { issues, failure, onError, reset } = useFormIssues();
  const [commit, busy] = useCommit<ExportDialogMutation>(mutation);
  if (targetType === 'SESSION') {
    return (
      <p className="muted" role="status">
        A session is many traces, so a session queue is not exported; queue its traces instead.{' '}
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </p>
    );
  }

  const run = async (preview: boolean) => {
    reset();
    const input = {
      ...(destination === NEW ? { testsetName: newName } : { testsetId: destination }),
      mapping: Object.fromEntries(mapping.filter((row) => row.column.trim()).map((row) => [row.column.trim(), row.path])),
      expectedColumn: expected,
      preview,
    };
    try {
      setMade({ preview, result: (await commit({ id: queueId, input })).exportAnnotationQueue });
    } catch (error) {
      setMade(null);
      onError(error);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(false);
  };
  const columns = made ? [...new Set(made.result.rows.flatMap((row) => Object.keys(row.data as object)))] : [];
  const fields = ['testset_id', 'testset_name', 'expected_column', 'mapping', ...mapping.map((row) => `mapping.${row.column}`)];

  return (
    <form className="form queue-export" aria-label="Export to a test set" onSubmit={submit} noValidate>
      <p className="muted">
        Each reviewed item becomes a test case: the columns below are read from its span (a trace&rsquo;s root span), each score is a column, and a
        reviewer&rsquo;s correction is the expected answer. Rows keep their source trace and span.
      </p>
      <SelectField
        label="Test set"
        field="testset_id"
        issues={issues}
        value={destination === NEW ? '' : destination}
        onChange={(value) => setDestination(value || NEW)}
        placeholder="A new test set"
        options={testsetOptions(testsets)}
      />
      {destination === NEW && (
        <label>
          New test set&rsquo;s name
          <input value={newName} onChange={(event) => setNewName(event.target.value)} {...invalidProps(issues, 'testset_name')} />
          <FieldIssues issues={issues} field="testset_name" />
        </label>
      )}
      <fieldset className="queue-mapping">
        <legend>Columns from the span (JSONPath into $.input, $.output, $.metadata, $.attributes)</legend>
        {mapping.map((row, index) => (
          <div key={index} className="queue-mapping-row">
            <input
              aria-label={`Column ${index + 1}`}
              value={row.column}
              onChange={(event) => setMapping(mapping.map((other, at) => (at === index ? { ...other, column: event.target.value } : other)))}
            />
            <input
              aria-label={`JSONPath of column ${index + 1}`}
              value={row.path}
              {...invalidProps(issues, `mapping.${row.column}`)}
              onChange={(event) => setMapping(mapping.map((other, at) => (at === index ? { ...other, path: event.target.value } : other)))}
            />
            <button type="button" className="link-button small" onClick={() => setMapping(mapping.filter((_, at) => at !== index))}>
              Remove <span className="visually-hidden">column {index + 1}</span>
            </button>
            <FieldIssues issues={issues} field={`mapping.${row.column}`} />
          </div>
        ))}
        <button type="button" onClick={() => setMapping([...mapping, { column: '', path: '$.input' }])}>
          Add a column
        </button>
        <FieldIssues issues={issues} field="mapping" />
      </fieldset>
      <label>
        Expected answer&rsquo;s column (the corrections)
        <input value={expected} onChange={(event) => setExpected(event.target.value)} {...invalidProps(issues, 'expected_column')} />
        <FieldIssues issues={issues} field="expected_column" />
      </label>
      <FormIssues issues={issues} fields={fields} failure={failure} />
      {made && (
        <div role="status" className="queue-export-result">
          <p>
            {made.preview ? 'Preview: ' : ''}
            {made.result.rows.length} of {made.result.matched} reviewed items
            {made.result.capped ? ' (capped)' : ''}
            {made.result.skipped > 0 ? `, ${made.result.skipped} whose trace is gone left out` : ''}.
            {!made.preview && made.result.testset && (
              <>
                {' '}
                Written as revision {made.result.revision?.number} of{' '}
                <Link to={paths.testset(projectId, made.result.testset.databaseId)}>{made.result.testset.name}</Link>.
              </>
            )}
          </p>
          {made.preview && made.result.rows.length > 0 && (
            <table className="traces">
              <caption>The rows the export writes</caption>
              <thead>
                <tr>
                  {columns.map((column) => (
                    <th scope="col" key={column}>
                      {column}
                    </th>
                  ))}
                  <th scope="col">Source</th>
                </tr>
              </thead>
              <tbody>
                {made.result.rows.map((row, index) => (
                  <tr key={index}>
                    {columns.map((column) => (
                      <td key={column}>{cell((row.data as Record<string, unknown>)[column])}</td>
                    ))}
                    <td>
                      <Link to={paths.trace(projectId, row.sourceTraceId, row.sourceSpanId)}>{row.sourceTraceId}</Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <div className="form-actions">
        <button type="button" disabled={busy} onClick={() => void run(true)}>
          Preview
        </button>
        <button type="submit" disabled={busy}>
          {busy ? 'Exporting…' : 'Export'}
        </button>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
