// Test sets (docs/ui.md#test-sets): the list with an upload by drag and drop (or a file picker),
// CSV or JSON through the API's upload route, and a test set as a table, 100 rows a page.
import { useState, type DragEvent, type FormEvent } from 'react';
import { graphql, useFragment, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { TestsetListQueries, TestsetPageQueries } from './entrypoints.ts';
import type { TestsetsList_query$key } from '../__generated__/TestsetsList_query.graphql.ts';
import type { TestsetsListPaginationQuery } from '../__generated__/TestsetsListPaginationQuery.graphql.ts';
import type { TestsetsRow_testset$key } from '../__generated__/TestsetsRow_testset.graphql.ts';
import type { TestsetsRows_testset$key } from '../__generated__/TestsetsRows_testset.graphql.ts';
import type { TestsetsRevisions_testset$key } from '../__generated__/TestsetsRevisions_testset.graphql.ts';
import type { TestsetsRevisionRows_revision$key } from '../__generated__/TestsetsRevisionRows_revision.graphql.ts';
import type { TestsetsRows_page$key } from '../__generated__/TestsetsRows_page.graphql.ts';
import type { TestsetsListQuery } from '../__generated__/TestsetsListQuery.graphql.ts';
import type { TestsetsPageQuery } from '../__generated__/TestsetsPageQuery.graphql.ts';
import { FieldIssues, FormIssues, useFormIssues } from '../components/forms.tsx';
import { useWholeConnection } from '../connections.ts';
import { formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { uploadTestset, uploadType } from './upload.ts';
import '../evaluations/evaluations.css';

const listQuery = graphql`
  query TestsetsListQuery {
    ...TestsetsList_query
  }
`;

const listFragment = graphql`
  fragment TestsetsList_query on Query
  @refetchable(queryName: "TestsetsListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    testsets(first: $count, after: $cursor) @connection(key: "TestsetsList_testsets") {
      edges {
        node {
          id
          ...TestsetsRow_testset
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment TestsetsRow_testset on Testset {
    databaseId
    name
    rowCount
    columns
    createdAt
    app {
      name
    }
  }
`;

const pageQuery = graphql`
  query TestsetsPageQuery($id: ID!, $after: String, $revision: Int!, $old: Boolean!) {
    testset(id: $id) {
      name
      rowCount
      updatedAt
      currentRevision
      ...TestsetsRows_testset @arguments(after: $after) @skip(if: $old) @alias(as: "current")
      revision(number: $revision) @include(if: $old) {
        number
        rowCount
        createdAt
        ...TestsetsRevisionRows_revision @arguments(after: $after)
      }
      ...TestsetsRevisions_testset
    }
  }
`;

// The revisions, newest last (docs/resources.md#test-set-revisions).
const revisionsFragment = graphql`
  fragment TestsetsRevisions_testset on Testset {
    currentRevision
    revisions(first: 100) {
      edges {
        node {
          id
          number
          change
          rowCount
          createdAt
        }
      }
    }
  }
`;

// One page of a test set's rows, the page's cursor in the URL (docs/ui.md#test-sets): the current
// ones, or those of an old revision, read-only.
const rowsFragment = graphql`
  fragment TestsetsRows_testset on Testset @argumentDefinitions(after: { type: "String" }) {
    columns
    rows(first: 100, after: $after) {
      ...TestsetsRows_page
    }
  }
`;

const revisionRowsFragment = graphql`
  fragment TestsetsRevisionRows_revision on TestsetRevision @argumentDefinitions(after: { type: "String" }) {
    columns
    rows(first: 100, after: $after) {
      ...TestsetsRows_page
    }
  }
`;

const pageFragment = graphql`
  fragment TestsetsRows_page on TestsetRowConnection {
    edges {
      node {
        id
        position
        data
        sourceTraceId
        sourceSpanId
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
`;

function Upload({ projectId }: { projectId: string }) {
  const { navigate } = useRouter();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  // The name follows the file dropped until the user types one.
  const [named, setNamed] = useState(false);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const { issues, setIssues, failure, setFailure, onError } = useFormIssues();
  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    setIssues(uploadType(chosen) ? new Map() : new Map([['file', ['Choose a .csv or .json file']]]));
    setFile(chosen);
    if (!named) setName(chosen.name.replace(/\.(csv|json)$/i, ''));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    choose(event.dataTransfer.files[0]);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const type = file && uploadType(file);
    if (!file || !type) {
      setIssues(new Map([['file', [file ? 'Choose a .csv or .json file' : 'Drop a file here or choose one']]]));
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const created = await uploadTestset(projectId, file, name, type);
      navigate(paths.testset(projectId, created.id));
    } catch (error) {
      onError(error);
      setBusy(false);
    }
  };
  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate aria-label="Upload a test set">
      <h2>Upload a test set</h2>
      <div
        className={`dropzone${over ? ' over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>{file ? `${file.name} (${uploadType(file) ?? 'unknown type'}, ${file.size.toLocaleString('en-US')} bytes)` : 'Drop a CSV or JSON file here, or'}</p>
        <label>
          Choose a file
          <input type="file" accept=".csv,.json,text/csv,application/json" onChange={(event) => choose(event.target.files?.[0])} />
        </label>
        <FieldIssues issues={issues} field="file" />
        <FieldIssues issues={issues} field="upload_type" />
      </div>
      <label>
        Name
        <input
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setNamed(true);
          }}
        />
        <FieldIssues issues={issues} field="testset_name" />
      </label>
      <FormIssues issues={issues} fields={['file', 'testset_name', 'upload_type']} failure={failure} />
      <div className="form-actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
    </form>
  );
}

function TestsetRow({ projectId, testset: key }: { projectId: string; testset: TestsetsRow_testset$key }) {
  const testset = useFragment(rowFragment, key);
  return (
    <tr>
      <td>
        <Link to={paths.testset(projectId, testset.databaseId)}>{testset.name}</Link>
      </td>
      <td className="numeric">{testset.rowCount.toLocaleString('en-US')}</td>
      <td className="small">{testset.columns.join(', ')}</td>
      <td>{testset.app?.name ?? '–'}</td>
      <td>{formatTime(testset.createdAt)}</td>
    </tr>
  );
}

export function TestsetList({ route: { projectId }, queries }: ScreenProps<RouteOf<'testsets'>, TestsetListQueries>) {
  const root = usePreloadedQuery<TestsetsListQuery>(listQuery, queries.list);
  const { data, pages } = useWholeConnection<TestsetsListPaginationQuery, TestsetsList_query$key>(listFragment, root);
  const testsets = data.testsets.edges.map((edge) => edge.node);
  return (
    <section aria-labelledby="testsets-title">
      <h1 id="testsets-title">Test sets</h1>
      {testsets.length === 0 ? (
        <Empty title="No test set yet">Upload a CSV or JSON file below.</Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Test sets</caption>
          <HeadRow columns={['Name', 'Cases', 'Columns', 'App', 'Created']} numeric={['Cases']} />
          <tbody>
            {testsets.map((testset) => (
              <TestsetRow key={testset.id} projectId={projectId} testset={testset} />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
      <Upload projectId={projectId} />
    </section>
  );
}

function cell(value: unknown): string {
  return typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value);
}

interface RowsProps {
  projectId: string;
  testsetId: string;
  after: string | null;
  /** The old revision shown; the current rows when null. */
  revision: number | null;
}

function CurrentRows({ testset: key, ...props }: RowsProps & { testset: TestsetsRows_testset$key }) {
  const testset = useFragment(rowsFragment, key);
  return <TestsetRows {...props} columns={testset.columns} page={testset.rows} />;
}

function RevisionRows({ data: key, ...props }: RowsProps & { data: TestsetsRevisionRows_revision$key }) {
  const revision = useFragment(revisionRowsFragment, key);
  return <TestsetRows {...props} columns={revision.columns} page={revision.rows} />;
}

function TestsetRows({
  projectId,
  testsetId,
  after,
  revision,
  columns,
  page: pageKey,
}: RowsProps & { columns: readonly string[]; page: TestsetsRows_page$key }) {
  const page = useFragment(pageFragment, pageKey);
  const testset = { columns, rows: page };
  const rows = page.edges.map((edge) => edge.node);
  // Cases made from production spans link to the span they came from.
  const hasSources = rows.some((row) => row.sourceTraceId !== null);
  return (
    <>
      <div className="table-scroll">
        <table className="traces testset-rows">
          <caption className="visually-hidden">Test cases {rows.length > 0 ? `${rows[0].position + 1} to ${rows.at(-1)!.position + 1}` : ''}</caption>
          <thead>
            <tr>
              <th scope="col" className="numeric">
                #
              </th>
              {testset.columns.map((column) => (
                <th scope="col" key={column}>
                  {column}
                </th>
              ))}
              {hasSources && <th scope="col">Source</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td className="numeric">{row.position + 1}</td>
                {testset.columns.map((column) => (
                  <td key={column}>{cell((row.data as Record<string, unknown>)[column])}</td>
                ))}
                {hasSources && (
                  <td>
                    {row.sourceTraceId && <Link to={paths.trace(projectId, row.sourceTraceId, row.sourceSpanId)}>{row.sourceSpanId ?? row.sourceTraceId}</Link>}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Pages of test cases">
        {after && <Link to={paths.testset(projectId, testsetId, null, revision)}>First page</Link>}
        {testset.rows.pageInfo.hasNextPage && <Link to={paths.testset(projectId, testsetId, testset.rows.pageInfo.endCursor, revision)}>Next 100</Link>}
      </nav>
    </>
  );
}

const changeNames: Record<string, string> = {
  CREATED: 'created',
  UPLOADED: 'uploaded',
  REPLACED: 'replaced',
  ROWS_ADDED: 'rows added',
  ROWS_EDITED: 'rows edited',
  ROWS_DELETED: 'rows deleted',
  ROWS_FROM_SPANS: 'rows from production spans',
  COLUMNS_CHANGED: 'columns renamed or removed',
  ROWS_ARCHIVED: 'a case archived',
  DESCRIBED: 'description changed',
};

/** The revisions, each a link to its rows as they were (the one shown marked). */
function Revisions({
  projectId,
  testsetId,
  shown,
  testset: key,
}: {
  projectId: string;
  testsetId: string;
  shown: number | null;
  testset: TestsetsRevisions_testset$key;
}) {
  const testset = useFragment(revisionsFragment, key);
  const revisions = testset.revisions.edges.map((edge) => edge.node);
  return (
    <section aria-labelledby="revisions-title">
      <h2 id="revisions-title">Revisions</h2>
      <table className="traces">
        <caption className="visually-hidden">Revisions of the test set; evaluations run the revision they were created on</caption>
        <HeadRow columns={['#', 'Change', 'Cases', 'When']} numeric={['#', 'Cases']} />
        <tbody>
          {revisions.map((revision) => (
            <tr key={revision.id} aria-current={revision.number === (shown ?? testset.currentRevision) ? 'true' : undefined}>
              <td className="numeric">
                <Link
                  to={paths.testset(projectId, testsetId, null, revision.number === testset.currentRevision ? null : revision.number)}
                  aria-label={`Revision ${revision.number}${revision.number === testset.currentRevision ? ' (current)' : ''}`}
                >
                  {revision.number}
                </Link>
              </td>
              <td>{changeNames[revision.change] ?? revision.change}</td>
              <td className="numeric">{revision.rowCount.toLocaleString('en-US')}</td>
              <td>{formatTime(revision.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function TestsetPage({ route: { projectId, testsetId, after, revision: shown }, queries }: ScreenProps<RouteOf<'testset'>, TestsetPageQueries>) {
  const data = usePreloadedQuery<TestsetsPageQuery>(pageQuery, queries.testset);
  const testset = data.testset;
  if (!testset)
    return (
      <Empty title="No such test set">
        <Link to={paths.testsets(projectId)}>See the test sets</Link>
      </Empty>
    );
  return (
    <section aria-labelledby="testset-title">
      <p className="breadcrumb">
        <Link to={paths.testsets(projectId)}>Test sets</Link> / {testset.name}
      </p>
      <h1 id="testset-title">{testset.name}</h1>
      {shown === null ? (
        <p className="muted">
          {testset.rowCount.toLocaleString('en-US')} cases, changed {formatTime(testset.updatedAt)}
        </p>
      ) : testset.revision ? (
        <p className="notice" role="status">
          Revision {testset.revision.number} of {testset.currentRevision}, read-only: {testset.revision.rowCount.toLocaleString('en-US')} cases as they were on{' '}
          {formatTime(testset.revision.createdAt)}. <Link to={paths.testset(projectId, testsetId)}>Show the current revision</Link>
        </p>
      ) : (
        <Empty title={`No revision ${shown}`}>
          <Link to={paths.testset(projectId, testsetId)}>Show the current revision</Link>
        </Empty>
      )}
      {testset.revision ? (
        <RevisionRows projectId={projectId} testsetId={testsetId} after={after} revision={shown} data={testset.revision} />
      ) : (
        testset.current && <CurrentRows projectId={projectId} testsetId={testsetId} after={after} revision={null} testset={testset.current} />
      )}
      <Revisions projectId={projectId} testsetId={testsetId} shown={shown} testset={testset} />
    </section>
  );
}
