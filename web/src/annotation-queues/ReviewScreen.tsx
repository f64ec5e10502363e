// The review screen (docs/annotation-queues.md#in-the-ui), made for the keyboard (review.ts): the
// server gives the reviewer an item (nextAnnotationQueueItem, locked to them), the item is shown as
// its own page shows it (Targets.tsx), the reviewer picks a value per score field and may write a
// correction, and Ctrl or Cmd+Enter completes it and opens the next.
import { Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { graphql, usePreloadedQuery } from 'react-relay';
import type { ReviewScreenCompleteMutation } from '../__generated__/ReviewScreenCompleteMutation.graphql.ts';
import type { ReviewScreenNextMutation, ReviewScreenNextMutation$data } from '../__generated__/ReviewScreenNextMutation.graphql.ts';
import type { ReviewScreenQuery } from '../__generated__/ReviewScreenQuery.graphql.ts';
import { refusalOf, useCommit } from '../components/actions.tsx';
import { isField } from '../components/keys.ts';
import { KeyList } from '../components/KeyList.tsx';
import { Empty, ErrorBoundary, ErrorMessage, Loading } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCount } from '../format.ts';
import { Link, paths, type RouteOf } from '../router.tsx';
import { optionsOf } from '../scores/keys.ts';
import type { PanelConfig } from '../scores/panel.ts';
import { readScoreConfig } from '../scores/traceScores.ts';
import type { ReviewScreenQueries } from './entrypoints.ts';
import { completionScores, pickedValue, reviewKeyAction, reviewKeys, type Picked } from './review.ts';
import { ScenarioTarget, SessionTarget, TraceTarget } from './Targets.tsx';
import './queues.css';

const query = graphql`
  query ReviewScreenQuery($id: ID!) {
    node(id: $id) {
      ... on AnnotationQueue {
        id
        databaseId
        name
        instructions
        targetType
        scoreConfigs {
          ...traceScores_scoreConfig
        }
        progress {
          items
          done
        }
      }
    }
  }
`;

const nextMutation = graphql`
  mutation ReviewScreenNextMutation($queueId: ID!) {
    nextAnnotationQueueItem(queueId: $queueId) {
      id
      targetId
      traceId
      annotationCount
    }
  }
`;

// The queue's progress comes back with the item, so the count on screen follows each completion.
const completeMutation = graphql`
  mutation ReviewScreenCompleteMutation($id: ID!, $scores: [AnnotationScoreInput!]!, $correction: String) {
    completeAnnotationQueueItem(id: $id, scores: $scores, correction: $correction) {
      item {
        id
        status
        annotationCount
        queue {
          id
          progress {
            items
            done
          }
        }
      }
    }
  }
`;

type Item = NonNullable<ReviewScreenNextMutation$data['nextAnnotationQueueItem']>;
/** An item of this sitting: the one under review, or one completed, with what was given. */
interface Reviewed {
  item: Item;
  values: Record<string, Picked>;
  correction: string;
  completed: boolean;
}

function valueText(picked: Picked | undefined): string {
  if (!picked) return 'not given';
  return picked.stringValue ?? String(picked.value);
}

function Target({ projectId, targetType, item }: { projectId: string; targetType: string; item: Item }) {
  if (targetType === 'SESSION') return <SessionTarget projectId={projectId} sessionId={item.targetId} />;
  if (targetType === 'EVALUATION_SCENARIO') return <ScenarioTarget projectId={projectId} scenarioId={item.targetId} />;
  if (targetType === 'SPAN') return <TraceTarget projectId={projectId} traceId={item.traceId ?? ''} spanId={item.targetId} />;
  return <TraceTarget projectId={projectId} traceId={item.targetId} spanId={null} />;
}

function KeysDialog({ onClose }: { onClose: () => void }) {
  return (
    <div className="review-keys" role="dialog" aria-modal="false" aria-label="Keys">
      <h2>Keys</h2>
      <KeyList keys={reviewKeys} />
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

function Review({ projectId, queueId, targetType, configs }: { projectId: string; queueId: string; targetType: string; configs: readonly PanelConfig[] }) {
  const [next, taking] = useCommit<ReviewScreenNextMutation>(nextMutation);
  const [complete, completing] = useCommit<ReviewScreenCompleteMutation>(completeMutation);
  const [sitting, setSitting] = useState<Reviewed[]>([]);
  const [at, setAt] = useState(0);
  const [field, setField] = useState(0);
  const [finished, setFinished] = useState(false);
  const [help, setHelp] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const correctionInput = useRef<HTMLTextAreaElement>(null);
  const screen = useRef<HTMLDivElement>(null);
  const current = sitting[at] ?? null;
  const editable = current !== null && !current.completed;
  const fields = configs.length + 1;

  const takeNext = useCallback(async () => {
    setFailure(null);
    try {
      const item = (await next({ queueId })).nextAnnotationQueueItem;
      if (!item) return setFinished(true);
      setSitting((items) => {
        const kept = items.filter((reviewed) => reviewed.item.id !== item.id);
        setAt(kept.length);
        return [...kept, { item, values: {}, correction: '', completed: false }];
      });
      setField(0);
    } catch (error) {
      setFailure(refusalOf(error).message);
    }
  }, [next, queueId]);

  // The first item is taken as the screen opens.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void takeNext();
  }, [takeNext]);

  const change = (update: (reviewed: Reviewed) => Reviewed) =>
    setSitting((items) => items.map((reviewed, index) => (index === at ? update(reviewed) : reviewed)));
  const pick = (config: PanelConfig, index: number) => {
    const picked = pickedValue(config, index);
    if (picked) change((reviewed) => ({ ...reviewed, values: { ...reviewed.values, [config.id]: picked } }));
  };

  const finish = async () => {
    if (!current || !editable || completing) return;
    setFailure(null);
    try {
      await complete({
        id: current.item.id,
        scores: completionScores(configs, current.values),
        correction: current.correction.trim() ? current.correction : null,
      });
      change((reviewed) => ({ ...reviewed, completed: true }));
      screen.current?.focus();
      await takeNext();
    } catch (error) {
      setFailure(refusalOf(error).message);
    }
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // The span tree keeps its own arrows while it has the focus.
      const inTree = event.target instanceof Element && event.target.closest('[role="tree"]') !== null;
      const action = reviewKeyAction(event, isField(event.target) || inTree);
      if (!action) return;
      event.preventDefault();
      if (action.kind === 'help') return setHelp((open) => !open);
      if (action.kind === 'escape') {
        setHelp(false);
        if (isField(event.target)) screen.current?.focus();
        return;
      }
      if (action.kind === 'complete') return void finish();
      if (action.kind === 'item') return setAt((index) => Math.max(0, Math.min(sitting.length - 1, index + action.step)));
      if (action.kind === 'field') return setField((index) => Math.max(0, Math.min(fields - 1, index + action.step)));
      if (action.kind === 'correction') {
        setField(configs.length);
        return correctionInput.current?.focus();
      }
      const config = configs[field];
      if (config && editable) pick(config, action.index);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const completedHere = useMemo(() => sitting.filter((reviewed) => reviewed.completed).length, [sitting]);
  if (failure && sitting.length === 0) {
    return (
      <div className="state error" role="alert">
        <p>{failure}</p>
        <p>
          <Link to={paths.queues(projectId)}>Back to the queues</Link>
        </p>
      </div>
    );
  }
  // Past the last item completed: nothing left (Shift+← still opens the ones of this sitting).
  if (finished && (!current || (current.completed && at === sitting.length - 1))) return <Done projectId={projectId} count={completedHere} />;
  if (!current) return <Loading label="Taking the next item…" />;
  return (
    <div ref={screen} tabIndex={-1} className="review-screen">
      <aside className="review-panel" aria-label="Review">
        <p className="muted small">
          Item {at + 1} of this sitting{current.completed ? ' (completed)' : ''} · {completedHere} completed here · press <kbd>?</kbd> for the keys
        </p>
        <ol className="review-fields">
          {configs.map((config, index) => {
            const picked = current.values[config.id];
            const active = index === field;
            return (
              <li
                key={config.id}
                className={`review-field${active ? ' active' : ''}`}
                aria-current={active ? 'true' : undefined}
                onClick={() => setField(index)}
              >
                <div className="score-row-head">
                  <span className="score-name">{config.name}</span>
                  <span className="muted small" data-testid={`value-${config.name}`}>
                    {valueText(picked)}
                  </span>
                </div>
                {config.dataType === 'NUMERIC' ? (
                  <p className="muted small">
                    Press 1–9 for the number{config.minValue != null && config.maxValue != null ? ` (${config.minValue} to ${config.maxValue})` : ''}.
                  </p>
                ) : (
                  <div className="score-options" role="group" aria-label={config.name}>
                    {optionsOf(config).map((option, optionIndex) => (
                      <button
                        key={option.label}
                        type="button"
                        disabled={!editable}
                        aria-pressed={picked?.stringValue === option.label}
                        onClick={() => pick(config, optionIndex)}
                      >
                        {option.label}
                        {optionIndex < 9 && <kbd aria-hidden="true">{optionIndex + 1}</kbd>}
                      </button>
                    ))}
                  </div>
                )}
              </li>
            );
          })}
          <li className={`review-field${field === configs.length ? ' active' : ''}`} aria-current={field === configs.length ? 'true' : undefined}>
            <label>
              Correction (the expected answer, when the output is wrong; <kbd>E</kbd>)
              <textarea
                ref={correctionInput}
                rows={3}
                disabled={!editable}
                value={current.correction}
                onFocus={() => setField(configs.length)}
                onChange={(event) => change((reviewed) => ({ ...reviewed, correction: event.target.value }))}
              />
            </label>
          </li>
        </ol>
        {failure && <ErrorMessage error={new Error(failure)} />}
        <div className="form-actions">
          <button type="button" disabled={!editable || completing || taking} onClick={() => void finish()}>
            {completing ? 'Completing…' : 'Complete and next'} <kbd aria-hidden="true">Ctrl+Enter</kbd>
          </button>
        </div>
      </aside>
      <div className="review-item">
        <ErrorBoundary resetKey={current.item.id}>
          <Suspense fallback={<Loading label="Loading the item…" />}>
            <Target projectId={projectId} targetType={targetType} item={current.item} />
          </Suspense>
        </ErrorBoundary>
      </div>
      {help && <KeysDialog onClose={() => setHelp(false)} />}
    </div>
  );
}

function Done({ projectId, count }: { projectId: string; count: number }) {
  return (
    <Empty title="Nothing left for you in this queue">
      <p role="status">
        You completed {formatCount(count)} item{count === 1 ? '' : 's'} here. <Link to={paths.queues(projectId)}>Back to the queues</Link>
      </p>
    </Empty>
  );
}

export function ReviewScreen({ route: { projectId, queueId }, queries }: ScreenProps<RouteOf<'queue-review'>, ReviewScreenQueries>) {
  const { node: queue } = usePreloadedQuery<ReviewScreenQuery>(query, queries.queue);
  const configs = useMemo(() => queue?.scoreConfigs?.map(readScoreConfig) ?? [], [queue?.scoreConfigs]);
  if (!queue?.databaseId) {
    return (
      <Empty title="No such annotation queue">
        <Link to={paths.queues(projectId)}>See the queues</Link>
      </Empty>
    );
  }
  return (
    <section>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={paths.queues(projectId)}>Annotation queues</Link> / <span aria-current="page">{queue.name}</span>
      </nav>
      <h1>Reviewing {queue.name}</h1>
      {queue.progress && (
        <p className="muted" role="status" aria-label="Queue progress">
          {formatCount(queue.progress.done)} of {formatCount(queue.progress.items)} items done
        </p>
      )}
      {queue.instructions && <p className="queue-instructions">{queue.instructions}</p>}
      <Review key={queueId} projectId={projectId} queueId={queue.id!} targetType={queue.targetType!} configs={configs} />
    </section>
  );
}
