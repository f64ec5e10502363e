// "Add to queue" (docs/annotation-queues.md#in-the-ui), shared by the trace list, the trace page, the
// sessions and the evaluation results: the screen names what it offers (the traces selected, a
// filter's matches, this span…), each of a target type; the reviewer picks a queue of that type,
// and the answer tells how many were added, were there already, or matched a filter (capped).
import { Suspense, useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { AddToQueueFilterMutation, AddToQueueFilterMutation$variables } from '../__generated__/AddToQueueFilterMutation.graphql.ts';
import type { AddToQueueMutation } from '../__generated__/AddToQueueMutation.graphql.ts';
import type { AddToQueueQuery, AnnotationQueueTargetType } from '../__generated__/AddToQueueQuery.graphql.ts';
import { useCommit } from '../components/actions.tsx';
import { FieldIssues, FormIssues, SelectField, useFormIssues } from '../components/forms.tsx';
import { ErrorBoundary, Loading } from '../components/states.tsx';
import { Link, paths } from '../router.tsx';

const query = graphql`
  query AddToQueueQuery {
    annotationQueues(first: 100) {
      edges {
        node {
          id
          databaseId
          name
          targetType
        }
      }
    }
  }
`;

const addMutation = graphql`
  mutation AddToQueueMutation($queueId: ID!, $targets: [AnnotationQueueTargetInput!]!) {
    addAnnotationQueueItems(queueId: $queueId, targets: $targets) {
      added
      existing
      matched
    }
  }
`;

const filterMutation = graphql`
  mutation AddToQueueFilterMutation(
    $queueId: ID!
    $limit: Int
    $startedAfter: DateTime
    $startedBefore: DateTime
    $nameContains: String
    $spanKind: [SpanKind!]
    $status: [SpanStatusCode!]
    $userId: String
    $sessionId: String
    $environment: String
    $model: String
    $text: String
    $minCost: Float
    $maxCost: Float
    $minLatency: Float
    $maxLatency: Float
    $attributes: [AttributeFilter!]
    $scores: [ScoreFilter!]
  ) {
    addAnnotationQueueItemsFromFilter(
      queueId: $queueId
      limit: $limit
      startedAfter: $startedAfter
      startedBefore: $startedBefore
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
      attributes: $attributes
      scores: $scores
    ) {
      added
      existing
      matched
    }
  }
`;

export type QueueTargetType = AnnotationQueueTargetType;
export type FilterVariables = Omit<AddToQueueFilterMutation$variables, 'queueId' | 'limit'>;

/** What a screen offers to add: targets of one type, or (trace queues) a trace filter's matches. */
export interface QueueSource {
  label: string;
  type: QueueTargetType;
  targets?: readonly { targetId: string; traceId?: string | null }[];
  filter?: FilterVariables;
}

const MAX_FROM_FILTER = 1000;

function Form({ projectId, sources }: { projectId: string; sources: readonly QueueSource[] }) {
  const { annotationQueues } = useLazyLoadQuery<AddToQueueQuery>(query, {}, { fetchPolicy: 'store-and-network' });
  const types = new Set(sources.map((source) => source.type));
  const queues = annotationQueues.edges.map(({ node }) => node).filter((queue) => types.has(queue.targetType));
  const [queueId, setQueueId] = useState('');
  const [sourceIndex, setSourceIndex] = useState(0);
  const [limit, setLimit] = useState('100');
  const [answer, setAnswer] = useState<string | null>(null);
  const { issues, failure, onError, reset } = useFormIssues();
  const [add, adding] = useCommit<AddToQueueMutation>(addMutation);
  const [addMatches, addingMatches] = useCommit<AddToQueueFilterMutation>(filterMutation);
  const queue = queues.find((candidate) => candidate.id === queueId);
  const usable = queue ? sources.filter((source) => source.type === queue.targetType) : [];
  const source = usable[Math.min(sourceIndex, usable.length - 1)];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!queue || !source) return;
    reset();
    setAnswer(null);
    try {
      const added = source.filter
        ? (await addMatches({ ...source.filter, queueId, limit: Number(limit) })).addAnnotationQueueItemsFromFilter
        : (await add({ queueId, targets: (source.targets ?? []).map((target) => ({ targetId: target.targetId, traceId: target.traceId ?? null })) }))
            .addAnnotationQueueItems;
      const matched =
        added.matched != null ? ` of ${added.matched} matching${added.matched > added.added + added.existing ? ` (only the first ${limit})` : ''}` : '';
      setAnswer(`Added ${added.added}${matched} to ${queue.name}${added.existing ? `; ${added.existing} were in it already` : ''}.`);
    } catch (error) {
      onError(error);
    }
  };

  if (annotationQueues.edges.length > 0 && queues.length === 0) return <p className="muted">No queue takes these: its items are of another kind.</p>;
  return (
    <form className="form add-to-queue" aria-label="Add to queue" onSubmit={(event) => void submit(event)} noValidate>
      {annotationQueues.edges.length === 0 ? (
        <p className="muted">
          No annotation queue yet: <Link to={paths.queues(projectId)}>create one</Link>.
        </p>
      ) : (
        <SelectField
          label="Queue"
          field="queueId"
          issues={issues}
          value={queueId}
          onChange={(value) => {
            setQueueId(value);
            setAnswer(null);
          }}
          placeholder="Choose a queue"
          options={queues.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
        />
      )}
      {usable.length > 1 && (
        <fieldset className="checks">
          <legend>Add</legend>
          {usable.map((candidate, index) => (
            <label key={candidate.label}>
              <input type="radio" name="queue-source" checked={candidate === source} onChange={() => setSourceIndex(index)} />
              {candidate.label}
            </label>
          ))}
        </fieldset>
      )}
      {usable.length === 1 && <p className="muted small">Adds {source?.label}.</p>}
      {source?.filter && (
        <label>
          At most (1 to {MAX_FROM_FILTER})
          <input inputMode="numeric" value={limit} onChange={(event) => setLimit(event.target.value)} />
          <FieldIssues issues={issues} field="limit" />
        </label>
      )}
      <FormIssues issues={issues} fields={['queueId', 'limit']} failure={failure} />
      {answer && <p role="status">{answer}</p>}
      <div className="form-actions">
        <button type="submit" disabled={!source || adding || addingMatches}>
          {adding || addingMatches ? 'Adding…' : 'Add'}
        </button>
      </div>
    </form>
  );
}

/** The "Add to queue" button and, once pressed, its form (the queues are read only then). */
export function AddToQueue({ projectId, sources, disabled }: { projectId: string; sources: readonly QueueSource[]; disabled?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <section aria-label="Add to queue" className="add-to-queue-section">
      <button type="button" aria-expanded={open} disabled={disabled} onClick={() => setOpen(!open)}>
        Add to queue
      </button>
      {open && (
        <ErrorBoundary>
          <Suspense fallback={<Loading label="Loading the queues…" />}>
            <Form projectId={projectId} sources={sources} />
          </Suspense>
        </ErrorBoundary>
      )}
    </section>
  );
}
