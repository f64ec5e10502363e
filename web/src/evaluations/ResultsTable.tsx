// An evaluation's results (docs/ui.md#the-results-table): a row per test case with its inputs,
// expected answer, output, each evaluator's result (an error with its message), cost, latency and a
// link to the case's trace. Only the rows in view are in the DOM (TanStack Virtual, fixed 52 px
// rows), so 10,000 cases scroll like 10; ↑ ↓ Home End move the selection, whose case is shown whole.
import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { formatCost, formatDuration } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { answerText, pairsText, resultText, scoreText } from './results.ts';
import type { Scenario } from './EvaluationResults.tsx';
import { AddToTestsetPanel } from '../testsets/AddToTestsetPanel.tsx';

const ROW_HEIGHT = 52;
/** Rows from the last loaded one at which the next page is asked for. */
const NEAR_END = 20;
/** Before the first layout, and without one (the component tests' DOM), a screenful of rows. */
const SCREENFUL = { width: 1200, height: 600 };

export interface ConfigColumn {
  id: string;
  name: string;
}

function ResultCell({ scenario, configId }: { scenario: Scenario; configId: string }) {
  const result = scenario.results.find((candidate) => candidate.evaluatorConfigId === configId)?.result;
  const failed = result?.type === 'error';
  const passed = result?.type === 'bool' ? Boolean(result.value) : null;
  return (
    <span className={failed ? 'clamp error-text' : passed === false ? 'fail' : passed ? 'pass' : undefined} title={resultText(result)}>
      {scoreText(result)}
    </span>
  );
}

function CaseDetails({ scenario, configs, projectId }: { scenario: Scenario; configs: readonly ConfigColumn[]; projectId: string }) {
  const output = scenario.outputs[0];
  return (
    <section className="case-details" aria-label={`Test case ${scenario.position + 1}`}>
      <h2>Test case {scenario.position + 1}</h2>
      <dl className="case-fields">
        <dt>Inputs</dt>
        <dd>
          <pre>{pairsText(scenario.inputs)}</pre>
        </dd>
        <dt>Expected</dt>
        <dd>
          <pre>{answerText(scenario.correctAnswers) || '–'}</pre>
        </dd>
        <dt>Output</dt>
        <dd>
          <pre className={output?.result.type === 'error' ? 'error-text' : undefined}>{resultText(output?.result)}</pre>
        </dd>
        {configs.map((config) => (
          <div key={config.id}>
            <dt>{config.name}</dt>
            <dd>
              <ResultCell scenario={scenario} configId={config.id} />
            </dd>
          </div>
        ))}
        <dt>Cost, latency</dt>
        <dd>
          {formatCost(output?.cost)}, {formatDuration(output?.latency)}
        </dd>
      </dl>
      {scenario.traceId && <Link to={paths.trace(projectId, scenario.traceId)}>Open the trace</Link>}
      {scenario.traceId && (
        <AddToTestsetPanel
          key={scenario.traceId}
          projectId={projectId}
          selection={{ traceIds: [scenario.traceId] }}
          label="Add this case's trace to a test set"
        />
      )}
    </section>
  );
}

interface RowProps {
  scenario: Scenario;
  index: number;
  start: number;
  selected: boolean;
  configs: readonly ConfigColumn[];
  projectId: string;
  onSelect: (index: number) => void;
}

/** One case's row; memoised, so scrolling renders only the rows that come into view. */
const ResultRow = memo(function ResultRow({ scenario, index, start, selected, configs, projectId, onSelect }: RowProps) {
  const output = scenario.outputs[0];
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-current={selected || undefined}
      className={`results-row${selected ? ' selected' : ''}${output?.result.type === 'error' ? ' failed' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      onClick={() => onSelect(index)}
    >
      <span role="cell" className="numeric">
        {scenario.position + 1}
      </span>
      <span role="cell" className="clamp" title={pairsText(scenario.inputs)}>
        {pairsText(scenario.inputs)}
      </span>
      <span role="cell" className="clamp" title={answerText(scenario.correctAnswers)}>
        {answerText(scenario.correctAnswers) || '–'}
      </span>
      <span role="cell" className={`clamp${output?.result.type === 'error' ? ' error-text' : ''}`} title={resultText(output?.result)}>
        {resultText(output?.result)}
      </span>
      {configs.map((config) => (
        <span role="cell" key={config.id}>
          <ResultCell scenario={scenario} configId={config.id} />
        </span>
      ))}
      <span role="cell" className="numeric">
        {formatCost(output?.cost)}
      </span>
      <span role="cell" className="numeric">
        {formatDuration(output?.latency)}
      </span>
      <span role="cell">
        {scenario.traceId ? (
          <Link to={paths.trace(projectId, scenario.traceId)} aria-label={`Trace of case ${scenario.position + 1}`} tabIndex={-1}>
            trace
          </Link>
        ) : (
          '–'
        )}
      </span>
    </div>
  );
});

export function ResultsTable({
  rows,
  total,
  configs,
  projectId,
  onNearEnd,
}: {
  rows: readonly Scenario[];
  /** Cases in the evaluation, loaded or not. */
  total: number;
  configs: readonly ConfigColumn[];
  projectId: string;
  /** Called when the rows in view come near the last loaded one: time for the next page. */
  onNearEnd?: () => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    initialRect: SCREENFUL,
    observeElementRect: (instance, report) => observeElementRect(instance, (rect) => report(rect.height > 0 ? rect : SCREENFUL)),
  });
  const lastInView = virtualizer.getVirtualItems().at(-1)?.index ?? 0;
  useEffect(() => {
    if (onNearEnd && lastInView >= rows.length - NEAR_END) onNearEnd();
  }, [onNearEnd, lastInView, rows.length]);
  const columns = `3.5rem minmax(9rem, 2fr) minmax(6rem, 1fr) minmax(9rem, 2fr) ${configs.map(() => 'minmax(5.5rem, 1fr)').join(' ')} 5rem 5rem 4rem`;
  const select = (index: number) => {
    const clamped = Math.max(0, Math.min(rows.length - 1, index));
    setSelected(clamped);
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
    if (event.key in moves) select((selected ?? -1) + moves[event.key]);
    else if (event.key === 'Home') select(0);
    else if (event.key === 'End') select(rows.length - 1);
    else return;
    event.preventDefault();
  };
  const chosen = selected !== null ? rows[selected] : undefined;
  return (
    <div className="results">
      <div
        className="results-table"
        role="table"
        aria-label="Results per test case"
        aria-rowcount={total + 1}
        aria-describedby="results-keys"
        style={{ ['--columns' as string]: columns }}
      >
        <div role="rowgroup">
          <div role="row" aria-rowindex={1} className="results-row results-head">
            <span role="columnheader">#</span>
            <span role="columnheader">Inputs</span>
            <span role="columnheader">Expected</span>
            <span role="columnheader">Output</span>
            {configs.map((config) => (
              <span role="columnheader" key={config.id}>
                {config.name}
              </span>
            ))}
            <span role="columnheader" className="numeric">
              Cost
            </span>
            <span role="columnheader" className="numeric">
              Latency
            </span>
            <span role="columnheader">Trace</span>
          </div>
        </div>
        <div
          className="results-scroller"
          style={{ height: `min(60vh, ${Math.max(rows.length, 1) * ROW_HEIGHT + 2}px)` }}
          ref={scroller}
          tabIndex={0}
          onKeyDown={onKeyDown}
          role="rowgroup"
          aria-label="Test cases"
        >
          <div role="presentation" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => (
              <ResultRow
                key={rows[item.index].id}
                scenario={rows[item.index]}
                index={item.index}
                start={item.start}
                selected={selected === item.index}
                configs={configs}
                projectId={projectId}
                onSelect={setSelected}
              />
            ))}
          </div>
        </div>
      </div>
      <p id="results-keys" className="muted small">
        {rows.length < total ? `${rows.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} cases loaded. ` : ''}
        Click a row, or focus the table and use ↑ ↓ Home End, to see its case whole.
      </p>
      {chosen && <CaseDetails scenario={chosen} configs={configs} projectId={projectId} />}
    </div>
  );
}
