// The span index and tree of the read path (span-tree.ts): order, orphans, parent cycles, depth.
import { describe, expect, it } from 'vitest';
import { buildTree, indexSpans, type TreeSpan } from './span-tree.js';

const span = (spanId: string, parentSpanId: string | null, start: number): TreeSpan => ({
  spanId,
  parentSpanId,
  startTimeUnixNano: BigInt(start),
});

type Node = { id: string; children: Node[] };
const ids = (spans: readonly TreeSpan[]) => spans.map((s) => s.spanId);
const treeOf = (spans: TreeSpan[]) => {
  const index = indexSpans(spans);
  return index.roots.map((root) => buildTree<TreeSpan, Node>(index, root, (s, children) => ({ id: s.spanId, children })));
};
/** Every id in the trees, iteratively (a deep chain must not recurse here either). */
const allIds = (trees: Node[]) => {
  const out: string[] = [];
  const stack = [...trees];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node.id);
    stack.push(...node.children);
  }
  return out.sort();
};

describe('indexSpans', () => {
  it('orders spans, siblings and roots by start time, then span id', () => {
    const index = indexSpans([span('c2', 'r', 30), span('c1', 'r', 10), span('r', null, 0), span('c0', 'r', 10)]);
    expect(ids(index.spans)).toEqual(['r', 'c0', 'c1', 'c2']);
    expect(ids(index.roots)).toEqual(['r']);
    expect(ids(index.childrenOf('r'))).toEqual(['c0', 'c1', 'c2']);
    expect(index.childrenOf('c0')).toEqual([]);
    expect(index.childrenOf('unknown')).toEqual([]);
  });

  it('makes spans whose parent is absent, or themselves, top-level', () => {
    const index = indexSpans([span('orphan', 'never-came', 5), span('self', 'self', 7), span('r', null, 9), span('kid', 'orphan', 6)]);
    expect(ids(index.roots)).toEqual(['orphan', 'self', 'r']);
    expect(ids(index.childrenOf('orphan'))).toEqual(['kid']);
  });

  it('breaks parent cycles at their earliest span so every span appears exactly once', () => {
    // a → b → c → a is a cycle; d hangs off b; r is a normal root with child x.
    const spans = [span('a', 'c', 20), span('b', 'a', 10), span('c', 'b', 30), span('d', 'b', 5), span('r', null, 40), span('x', 'r', 41)];
    const index = indexSpans(spans);
    expect(ids(index.roots)).toEqual(['r', 'b']); // top-level first, then the cycle's earliest span
    expect(ids(index.childrenOf('b'))).toEqual(['d', 'c']);
    expect(ids(index.childrenOf('a'))).toEqual([]); // b was cut from a
    expect(allIds(treeOf(spans))).toEqual(['a', 'b', 'c', 'd', 'r', 'x']);
  });

  it('roots a trace made only of a cycle', () => {
    const spans = [span('p', 'q', 2), span('q', 'p', 1)];
    expect(ids(indexSpans(spans).roots)).toEqual(['q']);
    expect(treeOf(spans)).toEqual([{ id: 'q', children: [{ id: 'p', children: [] }] }]);
  });

  it('gives an empty index for no spans', () => {
    const index = indexSpans([]);
    expect(index.roots).toEqual([]);
    expect(index.spans).toEqual([]);
  });

  it('builds a chain 100,000 deep without recursion', () => {
    const chain = Array.from({ length: 100_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`, i));
    const [tree] = treeOf(chain);
    let depth = 1;
    for (let node = tree; node.children.length > 0; node = node.children[0]!) depth++;
    expect(depth).toBe(100_000);
  });
});
