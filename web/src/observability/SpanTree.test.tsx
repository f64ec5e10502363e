// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildTree, type Outline } from './outline.ts';
import { SpanTree } from './SpanTree.tsx';

afterEach(cleanup);

// root ─┬─ plan ─── search docs
//       └─ answer (failed)
const outline: Outline = {
  spanIds: ['r', 'p', 's', 'a'],
  parents: [null, 0, 1, 0],
  names: ['root', 'plan', 'search docs', 'answer'],
  kinds: ['AGENT', 'CHAIN', 'RETRIEVER', 'LLM'],
  statuses: ['OK', 'OK', 'OK', 'ERROR'],
  offsets: [0, 0.1, 0.2, 1],
  latencies: [2, 0.5, 0.3, 1],
};

function setup(selected: number | null = null) {
  const onSelect = vi.fn();
  render(<SpanTree outline={outline} tree={buildTree(outline)} selected={selected} onSelect={onSelect} />);
  const tree = screen.getByRole('tree', { name: 'Spans of the trace' });
  const names = () =>
    within(tree)
      .queryAllByRole('treeitem')
      .map((row) => row.querySelector('.span-name')!.textContent);
  const active = () => tree.getAttribute('aria-activedescendant');
  return { tree, names, active, onSelect };
}

describe('SpanTree', () => {
  it('shows every span depth first with its level, state and timeline bar', () => {
    const { tree, names } = setup();
    expect(names()).toEqual(['root', 'plan', 'search docs', 'answer']);
    const rows = within(tree).getAllByRole('treeitem');
    expect(rows.map((row) => row.getAttribute('aria-level'))).toEqual(['1', '2', '3', '2']);
    expect(rows[0].getAttribute('aria-expanded')).toBe('true');
    expect(rows[2].hasAttribute('aria-expanded')).toBe(false);
    expect(within(rows[3]).getByText('error')).toBeTruthy();
    // The answer starts halfway through the 2 s trace and lasts half of it.
    const bar = rows[3].querySelector<HTMLElement>('.tree-bar')!;
    expect([bar.style.left, bar.style.width]).toEqual(['50%', '50%']);
  });

  it('moves, folds and selects with the keyboard', () => {
    const { tree, names, active, onSelect } = setup();
    expect(active()).toBe('span-row-0');
    fireEvent.keyDown(tree, { key: 'ArrowDown' });
    expect(active()).toBe('span-row-1');
    fireEvent.keyDown(tree, { key: 'ArrowLeft' }); // collapse "plan"
    expect(names()).toEqual(['root', 'plan', 'answer']);
    fireEvent.keyDown(tree, { key: 'ArrowLeft' }); // already collapsed: to the parent
    expect(active()).toBe('span-row-0');
    fireEvent.keyDown(tree, { key: 'End' });
    expect(active()).toBe('span-row-3');
    fireEvent.keyDown(tree, { key: 'Enter' });
    expect(onSelect).toHaveBeenCalledWith(3);
    fireEvent.keyDown(tree, { key: 'ArrowUp' });
    fireEvent.keyDown(tree, { key: 'ArrowRight' }); // expand "plan" again
    expect(names()).toEqual(['root', 'plan', 'search docs', 'answer']);
    fireEvent.keyDown(tree, { key: 'ArrowRight' }); // expanded: to its first child
    expect(active()).toBe('span-row-2');
  });

  it('collapses all, expands all, and folds a row by its twisty without selecting it', () => {
    const { names, onSelect } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Collapse all' }));
    expect(names()).toEqual(['root']);
    fireEvent.click(screen.getByRole('button', { name: 'Expand all' }));
    expect(names()).toEqual(['root', 'plan', 'search docs', 'answer']);
    fireEvent.click(document.querySelector('#span-row-1 .twisty')!);
    expect(names()).toEqual(['root', 'plan', 'answer']);
    expect(onSelect).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText('answer'));
    expect(onSelect).toHaveBeenCalledWith(3);
  });

  it('searches: only matches and their ancestors stay, matches marked', () => {
    const { names } = setup();
    act(() => {
      fireEvent.change(screen.getByRole('searchbox', { name: 'Search spans' }), { target: { value: 'DOCS' } });
    });
    expect(names()).toEqual(['root', 'plan', 'search docs']);
    expect(screen.getByText('1 matching')).toBeTruthy();
    expect(document.querySelector('#span-row-2')!.classList.contains('match')).toBe(true);
    expect(document.querySelector('#span-row-1')!.classList.contains('match')).toBe(false);
  });

  it('unfolds the ancestors of a span selected from outside and makes it the active row', () => {
    const { tree, names, active } = setup(2);
    expect(names()).toContain('search docs');
    expect(active()).toBe('span-row-2');
    expect(document.querySelector('#span-row-2')!.getAttribute('aria-selected')).toBe('true');
    expect(tree.querySelectorAll('[aria-selected="true"]')).toHaveLength(1);
  });

  it("shows each span's scores on its row, three and how many more", () => {
    const scores = new Map([[1, ['a', 'b', 'c', 'd'].map((name, index) => ({ id: name, name, dataType: 'NUMERIC', value: index + 0.5, stringValue: null }))]]);
    render(<SpanTree outline={outline} tree={buildTree(outline)} selected={null} onSelect={vi.fn()} scores={scores} />);
    const rows = within(screen.getByRole('tree', { name: 'Spans of the trace' })).getAllByRole('treeitem');
    expect([...rows[1].querySelectorAll('.score-chip')].map((chip) => chip.textContent)).toEqual(['a: 0.5', 'b: 1.5', 'c: 2.5', '+1']);
    expect(rows[0].querySelector('.score-chip')).toBeNull();
  });
});
