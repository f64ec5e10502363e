// "Add to test set" (docs/ui.md#add-to-test-set): spans chosen on the trace page, the traces
// selected in a list (each trace's root span), or a session's traces become test cases of a chosen
// test set, each column read from the span by a JSONPath (docs/resources.md#test-cases-from-production);
// a preview shows the rows before they are written.
import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { AddToTestsetMutation, AddToTestsetMutation$data } from '../__generated__/AddToTestsetMutation.graphql.ts';
import type { AddToTestsetQuery } from '../__generated__/AddToTestsetQuery.graphql.ts';
import { useCommit } from '../components/actions.tsx';
import { FieldIssues, FormIssues, invalidProps, SelectField, useFormIssues } from '../components/forms.tsx';
import { Link, paths } from '../router.tsx';
import { testsetOptions, useTestsetChoices } from './choices.ts';

const query = graphql`
  query AddToTestsetQuery {
    ...TestsetChoices_query
  }
`;

const mutation = graphql`
  mutation AddToTestsetMutation($id: ID!, $input: TestsetRowsFromSpansInput!) {
    addTestsetRowsFromSpans(id: $id, input: $input) {
      revision {
        number
      }
      rows {
        data
      }
    }
  }
`;

/** A first guess at where a column's value is: the expected answer in the output, the rest in the input. */
function guessPath(column: string): string {
  return /answer|expected|output/i.test(column) ? '$.output' : `$.input.${/^[A-Za-z_$][\w$-]*$/.test(column) ? column : `['${column}']`}`;
}

/** What becomes the test cases: spans, traces (their root spans) or sessions' traces (up to 1000 a session). */
export type SpanSelection = { spans: { traceId: string; spanId: string }[] } | { traceIds: string[] } | { sessionIds: string[] };

/** The mutation's selections: one, or one per session (a session's traces are a search filter's matches). */
function selectionInputs(selection: SpanSelection) {
  return 'sessionIds' in selection ? selection.sessionIds.map((sessionId) => ({ filter: { session_id: sessionId }, limit: 1000 })) : [selection];
}

function selectionText(selection: SpanSelection): string {
  if ('sessionIds' in selection)
    return `The root span of each trace of ${selection.sessionIds.length === 1 ? 'the session' : `${selection.sessionIds.length} sessions`} becomes a test case`;
  if ('spans' in selection)
    return selection.spans.length === 1 ? 'The selected span becomes one test case' : `${selection.spans.length} spans become test cases`;
  return selection.traceIds.length === 1
    ? "The trace's root span becomes one test case"
    : `The root spans of ${selection.traceIds.length} traces become test cases`;
}

interface Made {
  preview: boolean;
  result: Pick<AddToTestsetMutation$data['addTestsetRowsFromSpans'], 'revision' | 'rows'>;
}

export function AddToTestset({ projectId, selection }: { projectId: string; selection: SpanSelection }) {
  const data = useLazyLoadQuery<AddToTestsetQuery>(query, {}, { fetchPolicy: 'store-and-network' });
  const { testsets } = useTestsetChoices(data);
  const [testsetId, setTestsetId] = useState('');
  const [paths_, setPaths] = useState<Record<string, string>>({});
  const [made, setMade] = useState<Made | null>(null);
  const { issues, failure, onError, reset } = useFormIssues();
  const [commit, busy] = useCommit<AddToTestsetMutation>(mutation);
  const testset = testsets.find((candidate) => candidate.id === testsetId);
  const columns = testset?.columns ?? [];
  const mapping = Object.fromEntries(columns.map((column) => [column, paths_[column] ?? guessPath(column)]));

  const run = async (preview: boolean) => {
    reset();
    try {
      // Several sessions are added one after another, a revision each; the answer shows them all.
      let result: Made['result'] = { revision: null, rows: [] };
      for (const input of selectionInputs(selection)) {
        const response = await commit({ id: testsetId, input: { ...input, mapping, preview } });
        result = { revision: response.addTestsetRowsFromSpans.revision, rows: [...result.rows, ...response.addTestsetRowsFromSpans.rows] };
      }
      setMade({ preview, result });
    } catch (error) {
      setMade(null);
      onError(error);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(false);
  };

  return (
    <form className="add-to-testset" aria-label="Add to test set" onSubmit={submit}>
      <p className="muted">{selectionText(selection)}; each column is read from the span by a JSONPath.</p>
      <SelectField
        label="Test set"
        field="id"
        issues={issues}
        value={testsetId}
        onChange={(value) => {
          setTestsetId(value);
          setMade(null);
        }}
        placeholder="Choose a test set"
        options={testsetOptions(testsets)}
      />
      {columns.map((column) => (
        <label key={column}>
          {column}
          <input
            value={mapping[column]}
            {...invalidProps(issues, `mapping.${column}`)}
            onChange={(event) => setPaths({ ...paths_, [column]: event.target.value })}
          />
          <FieldIssues issues={issues} field={`mapping.${column}`} />
        </label>
      ))}
      <FormIssues issues={issues} fields={['id', ...columns.map((column) => `mapping.${column}`)]} failure={failure} />
      {made && (
        <div role="status">
          {made.preview ? (
            <table className="traces">
              <caption>Preview of the test cases</caption>
              <thead>
                <tr>
                  {columns.map((column) => (
                    <th scope="col" key={column}>
                      {column}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {made.result.rows.map((row, index) => (
                  <tr key={index}>
                    {columns.map((column) => {
                      const value = (row.data as Record<string, unknown>)[column];
                      return <td key={column}>{value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value)}</td>;
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>
              Added as revision {made.result.revision?.number} of {testset && <Link to={paths.testset(projectId, testset.databaseId)}>{testset.name}</Link>}.
            </p>
          )}
        </div>
      )}
      <div className="form-actions">
        <button type="button" disabled={!testset || busy} onClick={() => void run(true)}>
          Preview
        </button>
        <button type="submit" disabled={!testset || busy}>
          {busy ? 'Adding…' : 'Add'}
        </button>
      </div>
    </form>
  );
}
