import { describe, expect, it } from 'vitest';
import { allParents, buildTree, searchTree, visibleRows, type Outline } from './outline.ts';

/** An outline from `[id, parent position, name?]` rows, each span 1 s long starting at its position. */
function outlineOf(rows: [string, number | null, string?][]): Outline {
  return {
    spanIds: rows.map(([id]) => id),
    parents: rows.map(([, parent]) => parent),
    names: rows.map(([id, , name]) => name ?? `span ${id}`),
    kinds: rows.map(() => 'LLM'),
    statuses: rows.map(() => 'OK'),
    offsets: rows.map((_, i) => i),
    latencies: rows.map(() => 1),
  };
}

// root ─┬─ a ─┬─ a1
//       │     └─ a2
//       └─ b ─── b1
// orphan (top-level)
const sample = outlineOf([
  ['root', null],
  ['a', 0],
  ['a1', 1, 'fetch documents'],
  ['b', 0],
  ['a2', 1],
  ['b1', 3, 'Fetch more'],
  ['orphan', null],
]);

describe('buildTree', () => {
  it('links children in start order with depths, sibling positions and the timeline width', () => {
    const tree = buildTree(sample);
    expect(tree.roots).toEqual([0, 6]);
    expect(tree.children[0]).toEqual([1, 3]);
    expect(tree.children[1]).toEqual([2, 4]);
    expect([...tree.depth]).toEqual([0, 1, 2, 1, 2, 2, 0]);
    expect([...tree.position]).toEqual([1, 1, 1, 2, 2, 1, 2]);
    expect(tree.parent).toEqual([null, 0, 1, 0, 1, 3, null]);
    expect(tree.duration).toBe(7);
    expect(tree.indexOf.get('b1')).toBe(5);
  });

  it('makes a span whose parent is out of range, itself, or on a cycle top-level, so every span is shown once', () => {
    const tree = buildTree(
      outlineOf([
        ['x', 2],
        ['y', 0],
        ['z', 1],
        ['self', 3],
        ['far', 99],
      ]),
    );
    expect(visibleRows(tree, new Set()).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(tree.roots).toEqual(expect.arrayContaining([3, 4]));
    expect(tree.roots).toHaveLength(3); // one of the x → z → y → x cycle becomes a root
  });

  it('builds a 50,000-span chain (as deep as it is long) without recursion', () => {
    const size = 50_000;
    const outline = outlineOf(Array.from({ length: size }, (_, i): [string, number | null] => [`s${i}`, i === 0 ? null : i - 1]));
    const started = performance.now();
    const tree = buildTree(outline);
    const rows = visibleRows(tree, new Set());
    expect(performance.now() - started).toBeLessThan(1000);
    expect(rows).toHaveLength(size);
    expect(tree.depth[size - 1]).toBe(size - 1);
  });
});

describe('visibleRows', () => {
  it('lists depth first and leaves out the children of collapsed spans', () => {
    const tree = buildTree(sample);
    expect(visibleRows(tree, new Set())).toEqual([0, 1, 2, 4, 3, 5, 6]);
    expect(visibleRows(tree, new Set([1]))).toEqual([0, 1, 3, 5, 6]);
    expect(visibleRows(tree, allParents(tree))).toEqual([0, 6]);
  });
});

describe('searchTree', () => {
  it('matches names, ids and kinds ignoring case, keeping the ancestors that lead to the matches', () => {
    const tree = buildTree(sample);
    const search = searchTree(tree, sample, 'FETCH')!;
    expect(search.matches).toEqual([2, 5]);
    expect(visibleRows(tree, new Set(), search.shown)).toEqual([0, 1, 2, 3, 5]);
    expect(search.hit[2]).toBe(1);
    expect(search.hit[1]).toBe(0);
    expect(searchTree(tree, sample, 'orphan')!.matches).toEqual([6]);
    expect(searchTree(tree, sample, 'llm')!.matches).toHaveLength(7);
    expect(searchTree(tree, sample, '  ')).toBeNull();
    expect(searchTree(tree, sample, 'nothing like it')!.matches).toEqual([]);
  });
});
