// The annotation queues (docs/annotation-queues.md#in-the-ui): each queue with its progress, each
// reviewer's share and, where items have several reviewers, their agreement per score name; a
// form to create or change one; the review screen's link; the export to a test set.
import { Suspense, useState } from 'react';
import { graphql, usePreloadedQuery, useRefetchableFragment } from 'react-relay';
import type { AnnotationQueuesQuery } from '../__generated__/AnnotationQueuesQuery.graphql.ts';
import type { QueueList_query$data, QueueList_query$key } from '../__generated__/QueueList_query.graphql.ts';
import { Empty, ErrorBoundary, HeadRow, Loading } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCount } from '../format.ts';
import { Link, paths, type RouteOf } from '../router.tsx';
import type { QueueListQueries } from './entrypoints.ts';
import { ExportDialog } from './ExportDialog.tsx';
import { QueueForm } from './QueueForm.tsx';
import '../evaluations/evaluations.css';
import './queues.css';

const query = graphql`
  query AnnotationQueuesQuery {
    ...QueueList_query
  }
`;

const listFragment = graphql`
  fragment QueueList_query on Query @refetchable(queryName: "QueueListRefetchQuery") {
    annotationQueues(first: 100) {
      edges {
        node {
          id
          databaseId
          name
          instructions
          targetType
          annotatorsPerItem
          lockSeconds
          assigneeIds
          ruleCondition
          rules {
            id
          }
          scoreConfigs {
            id
            name
          }
          progress {
            items
            done
            pending
            inReview
            annotations
            required
            reviewers {
              annotator
              label
              annotations
            }
          }
          agreement {
            name
            agreement {
              scenarios
              observedAgreement
              fleissKappa
            }
          }
        }
      }
    }
  }
`;

export type Queue = QueueList_query$data['annotationQueues']['edges'][number]['node'];

const targetWords: Record<string, string> = { TRACE: 'traces', SPAN: 'spans', SESSION: 'sessions', EVALUATION_SCENARIO: 'evaluation results' };

const share = (part: number, whole: number) => (whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`);
const kappa = (value: number | null | undefined) => (value == null ? '–' : value.toFixed(2));

function QueueCard({ projectId, queue, onChanged }: { projectId: string; queue: Queue; onChanged: () => void }) {
  const [open, setOpen] = useState<'edit' | 'export' | null>(null);
  const { progress } = queue;
  // Agreement needs items with several reviewers; a name without such items says nothing.
  const agreement = queue.agreement.filter((row) => row.agreement.scenarios > 0);
  return (
    <li className="queue-card" aria-label={queue.name}>
      <div className="queue-head">
        <h2>{queue.name}</h2>
        <span className="muted small">
          {targetWords[queue.targetType] ?? queue.targetType} · {queue.annotatorsPerItem} reviewer{queue.annotatorsPerItem === 1 ? '' : 's'} per item ·{' '}
          {queue.scoreConfigs.map((config) => config.name).join(', ')}
        </span>
      </div>
      {queue.instructions && <p className="queue-instructions">{queue.instructions}</p>}
      <div className="queue-progress">
        <progress max={Math.max(progress.required, 1)} value={progress.annotations} aria-label={`Progress of ${queue.name}`} />
        <span>
          {formatCount(progress.done)} of {formatCount(progress.items)} items done ({share(progress.annotations, progress.required)} of the annotations)
          {progress.inReview > 0 && `, ${formatCount(progress.inReview)} in review`}
        </span>
      </div>
      {progress.reviewers.length > 0 && (
        <table className="queue-reviewers">
          <caption>Per reviewer</caption>
          <HeadRow columns={['Reviewer', 'Annotations']} numeric={['Annotations']} />
          <tbody>
            {progress.reviewers.map((reviewer) => (
              <tr key={reviewer.annotator}>
                <td>{reviewer.label ?? reviewer.annotator}</td>
                <td className="numeric">{formatCount(reviewer.annotations)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {agreement.length > 0 && (
        <table className="queue-agreement">
          <caption>Agreement where items have several reviewers</caption>
          <HeadRow columns={['Score', 'Items', 'Observed', 'Fleiss’ κ']} numeric={['Items', 'Observed', 'Fleiss’ κ']} />
          <tbody>
            {agreement.map(({ name, agreement: figures }) => (
              <tr key={name}>
                <td>{name}</td>
                <td className="numeric">{figures.scenarios}</td>
                <td className="numeric">{figures.observedAgreement == null ? '–' : share(figures.observedAgreement, 1)}</td>
                <td className="numeric">{kappa(figures.fleissKappa)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="queue-actions">
        <Link className="button-link" to={paths.queueReview(projectId, queue.databaseId)}>
          Review
        </Link>
        <button type="button" aria-expanded={open === 'edit'} onClick={() => setOpen(open === 'edit' ? null : 'edit')}>
          Edit
        </button>
        <button type="button" aria-expanded={open === 'export'} onClick={() => setOpen(open === 'export' ? null : 'export')}>
          Export to a test set
        </button>
      </div>
      {open !== null && (
        <ErrorBoundary resetKey={open}>
          <Suspense fallback={<Loading label="Loading…" />}>
            {open === 'edit' ? (
              <QueueForm
                queue={queue}
                onDone={() => {
                  setOpen(null);
                  onChanged();
                }}
              />
            ) : (
              <ExportDialog projectId={projectId} queueId={queue.id} targetType={queue.targetType} onClose={() => setOpen(null)} />
            )}
          </Suspense>
        </ErrorBoundary>
      )}
    </li>
  );
}

function List({ projectId, list }: { projectId: string; list: QueueList_query$key }) {
  const [data, refetch] = useRefetchableFragment(listFragment, list);
  const reload = () => refetch({}, { fetchPolicy: 'network-only' });
  const queues = data.annotationQueues.edges.map(({ node }) => node);
  return (
    <>
      <details className="queue-new">
        <summary>New queue</summary>
        <ErrorBoundary>
          <Suspense fallback={<Loading label="Loading the score configs…" />}>
            <QueueForm onDone={reload} />
          </Suspense>
        </ErrorBoundary>
      </details>
      {queues.length === 0 ? (
        <Empty title="No annotation queue yet">Create one above, then add traces to it from the trace list, a trace, a session or an evaluation.</Empty>
      ) : (
        <ul className="queue-list">
          {queues.map((queue) => (
            <QueueCard key={queue.id} projectId={projectId} queue={queue} onChanged={reload} />
          ))}
        </ul>
      )}
    </>
  );
}

export function QueueList({ route: { projectId }, queries }: ScreenProps<RouteOf<'queues'>, QueueListQueries>) {
  const data = usePreloadedQuery<AnnotationQueuesQuery>(query, queries.list);
  return (
    <section>
      <h1>Annotation queues</h1>
      <p className="muted">
        Reviewers work through a queue with the keyboard; each item needs its number of reviewers, enforced by the server. Reviewed items become test cases with{' '}
        <em>Export to a test set</em>.
      </p>
      <List projectId={projectId} list={data} />
    </section>
  );
}
