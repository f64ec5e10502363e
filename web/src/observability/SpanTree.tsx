// The span tree beside its waterfall (docs/ui.md#the-trace-page): one row per visible span, only
// the rows in view rendered (TanStack Virtual), so 50,000 spans scroll like 50. Keyboard: the tree
// is one tab stop (ARIA tree with aria-activedescendant); arrows move and fold, Enter selects.
import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { formatDuration } from '../format.ts';
import { scoreValueText, type PanelScore } from '../scores/panel.ts';
import '../scores/scores.css';
import { allParents, searchTree, visibleRows, type Outline, type SpanTree as Tree } from './outline.ts';

export const ROW_HEIGHT = 28;
const SCREENFUL = { width: 800, height: 600 };

interface Props {
  outline: Outline;
  tree: Tree;
  selected: number | null;
  onSelect: (span: number) => void;
  /** The scores of each span, by its index, shown on its row (docs/ui.md#scores). */
  scores?: ReadonlyMap<number, readonly ScoreShown[]>;
}

/** What a row shows of a score: its name and value. */
type ScoreShown = Pick<PanelScore, 'id' | 'name' | 'dataType' | 'value' | 'stringValue'>;

/** Scores shown on a row before "+n". */
const ROW_SCORES = 3;

export function SpanTree({ outline, tree, selected, onSelect, scores }: Props) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const [query, setQuery] = useState('');
  const search = useMemo(() => searchTree(tree, outline, query), [tree, outline, query]);
  const rows = useMemo(() => visibleRows(tree, collapsed, search?.shown), [tree, collapsed, search]);
  const rowOf = useMemo(() => {
    const map = new Map<number, number>();
    rows.forEach((span, row) => map.set(span, row));
    return map;
  }, [rows]);
  const [active, setActive] = useState<number | null>(selected);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // Before the first layout, and where there is none (a hidden pane, a DOM without layout as in
    // the component tests), assume a screenful of rows rather than none.
    initialRect: SCREENFUL,
    observeElementRect: (instance, report) => observeElementRect(instance, (rect) => report(rect.height > 0 ? rect : SCREENFUL)),
  });

  const activeSpan = active !== null && rowOf.has(active) ? active : (rows[0] ?? null);
  // Keep the active row rendered and in view (it is the tree's aria-activedescendant).
  useEffect(() => {
    if (activeSpan !== null) virtualizer.scrollToIndex(rowOf.get(activeSpan)!, { align: 'auto' });
  }, [activeSpan, rowOf, virtualizer]);
  // A span selected from outside (the URL) becomes the active one, its ancestors unfolded.
  useEffect(() => {
    if (selected === null) return;
    setActive(selected);
    setCollapsed((current) => {
      let next: Set<number> | null = null;
      for (let span = tree.parent[selected]; span !== null; span = tree.parent[span]) {
        if (current.has(span)) (next ??= new Set(current)).delete(span);
      }
      return next ?? current;
    });
  }, [selected, tree]);

  const toggle = (span: number) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(span)) next.add(span);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent) => {
    if (activeSpan === null) return;
    const row = rowOf.get(activeSpan)!;
    const hasChildren = tree.children[activeSpan].length > 0;
    const moveTo = (target: number | undefined) => target !== undefined && setActive(target);
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(rows[row + 1]),
      ArrowUp: () => moveTo(rows[row - 1]),
      Home: () => moveTo(rows[0]),
      End: () => moveTo(rows[rows.length - 1]),
      PageDown: () => moveTo(rows[Math.min(rows.length - 1, row + 20)]),
      PageUp: () => moveTo(rows[Math.max(0, row - 20)]),
      ArrowRight: () => {
        if (hasChildren && collapsed.has(activeSpan)) toggle(activeSpan);
        else if (hasChildren) moveTo(rows[row + 1]);
      },
      ArrowLeft: () => {
        if (hasChildren && !collapsed.has(activeSpan)) toggle(activeSpan);
        else moveTo(tree.parent[activeSpan] ?? undefined);
      },
      Enter: () => onSelect(activeSpan),
      ' ': () => onSelect(activeSpan),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  const scale = tree.duration > 0 ? 100 / tree.duration : 0;
  return (
    <div className="span-tree">
      <div className="tree-tools">
        <label>
          <span className="visually-hidden">Search spans</span>
          <input type="search" placeholder="Search spans by name, id or kind" value={query} onChange={(event) => setQuery(event.target.value)} />
        </label>
        <span role="status" className="muted small">
          {search ? `${search.matches.length.toLocaleString('en-US')} matching` : `${tree.size.toLocaleString('en-US')} spans`}
        </span>
        <button type="button" className="secondary" onClick={() => setCollapsed(new Set())}>
          Expand all
        </button>
        <button type="button" className="secondary" onClick={() => setCollapsed(allParents(tree))}>
          Collapse all
        </button>
      </div>
      <div className="tree-header" aria-hidden="true">
        <span>Span</span>
        <span>Timeline · {formatDuration(tree.duration)}</span>
        <span className="tree-latency">Latency</span>
      </div>
      <div
        ref={scroller}
        className="tree-scroller"
        role="tree"
        aria-label="Spans of the trace"
        tabIndex={0}
        aria-activedescendant={activeSpan !== null ? `span-row-${activeSpan}` : undefined}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const span = rows[item.index];
            const parent = tree.parent[span];
            const kids = tree.children[span].length;
            const failed = outline.statuses[span] === 'ERROR';
            const left = outline.offsets[span] * scale;
            return (
              <div
                key={span}
                id={`span-row-${span}`}
                role="treeitem"
                aria-level={tree.depth[span] + 1}
                aria-setsize={parent === null ? tree.roots.length : tree.children[parent].length}
                aria-posinset={tree.position[span]}
                aria-expanded={kids > 0 ? !collapsed.has(span) : undefined}
                aria-selected={span === selected}
                className={`tree-row${span === activeSpan ? ' active' : ''}${span === selected ? ' selected' : ''}${search?.hit[span] ? ' match' : ''}`}
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                onClick={() => {
                  setActive(span);
                  onSelect(span);
                }}
              >
                <span className="tree-label" style={{ paddingLeft: tree.depth[span] * 14 }}>
                  <span
                    className="twisty"
                    aria-hidden="true"
                    onClick={(event) => {
                      event.stopPropagation();
                      if (kids > 0) toggle(span);
                    }}
                  >
                    {kids > 0 ? (collapsed.has(span) ? '▸' : '▾') : ''}
                  </span>
                  <span className={`kind kind-${outline.kinds[span].toLowerCase()}`}>{outline.kinds[span]}</span>
                  <span className="span-name">{outline.names[span]}</span>
                  {failed && <span className="badge error">error</span>}
                  <RowScores scores={scores?.get(span)} />
                </span>
                <span className="tree-bar-cell">
                  <span
                    className={`tree-bar${failed ? ' failed' : ''}`}
                    style={{ left: `${Math.min(left, 99.5)}%`, width: `${Math.max(outline.latencies[span] * scale, 0.3)}%` }}
                  />
                </span>
                <span className="tree-latency">{formatDuration(outline.latencies[span])}</span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function RowScores({ scores }: { scores: readonly ScoreShown[] | undefined }) {
  if (!scores?.length) return null;
  return (
    <>
      {scores.slice(0, ROW_SCORES).map((score) => (
        <span key={score.id} className="score-chip">
          {score.name}: {scoreValueText(score)}
        </span>
      ))}
      {scores.length > ROW_SCORES && <span className="score-chip">+{scores.length - ROW_SCORES}</span>}
    </>
  );
}
