// The trace page's tree (docs/ui.md#the-trace-page), built from `Trace.outline`'s parallel lists in
// O(n) without recursion, so a trace of 50,000 spans, however deep, builds in milliseconds and
// never overflows the stack. Spans are numbered by their position in the outline (start order).

export interface Outline {
  readonly spanIds: readonly string[];
  /** Position of each span's parent; null (or absent) for a top-level span. */
  readonly parents: readonly (number | null | undefined)[];
  readonly names: readonly string[];
  readonly kinds: readonly string[];
  readonly statuses: readonly string[];
  readonly offsets: readonly number[];
  readonly latencies: readonly number[];
}

export interface SpanTree {
  readonly size: number;
  /** Top-level spans in start order. */
  readonly roots: readonly number[];
  /** Direct children of each span, in start order. */
  readonly children: readonly (readonly number[])[];
  readonly parent: readonly (number | null)[];
  /** 0 for a top-level span. */
  readonly depth: Int32Array;
  /** 1-based position among its siblings (aria-posinset). */
  readonly position: Int32Array;
  /** Seconds from the first start to the last end: the timeline's width. */
  readonly duration: number;
  readonly indexOf: ReadonlyMap<string, number>;
}

const none: readonly number[] = Object.freeze([]);

export function buildTree(outline: Outline): SpanTree {
  const size = outline.spanIds.length;
  const children: number[][] = new Array<number[]>(size);
  const roots: number[] = [];
  const parent: (number | null)[] = new Array<number | null>(size);
  let duration = 0;
  for (let i = 0; i < size; i++) {
    // A parent outside the list (the API never sends one) is treated as missing.
    const p = outline.parents[i];
    const valid = p != null && p >= 0 && p < size && p !== i;
    parent[i] = valid ? p : null;
    if (valid) (children[p] ??= []).push(i);
    else roots.push(i);
    duration = Math.max(duration, outline.offsets[i] + outline.latencies[i]);
  }
  const depth = new Int32Array(size).fill(-1);
  const position = new Int32Array(size);
  // Walk down from the roots; what no root reaches (a cycle, which the API already cuts) becomes a root.
  const stack: number[] = [];
  const visit = (top: number, level: number) => {
    depth[top] = level;
    stack.push(top);
    while (stack.length > 0) {
      const span = stack.pop()!;
      const kids = children[span] ?? none;
      for (let k = 0; k < kids.length; k++) {
        const child = kids[k];
        if (depth[child] !== -1) continue;
        depth[child] = depth[span] + 1;
        position[child] = k + 1;
        stack.push(child);
      }
    }
  };
  roots.forEach((root, k) => {
    position[root] = k + 1;
    visit(root, 0);
  });
  for (let i = 0; i < size; i++) {
    if (depth[i] !== -1) continue;
    const siblings = children[parent[i]!];
    siblings.splice(siblings.indexOf(i), 1);
    parent[i] = null;
    roots.push(i);
    position[i] = roots.length;
    visit(i, 0);
  }
  return {
    size,
    roots,
    children: Array.from({ length: size }, (_, i) => children[i] ?? none),
    parent,
    depth,
    position,
    duration,
    indexOf: new Map(outline.spanIds.map((id, i) => [id, i])),
  };
}

/**
 * The rows on screen, depth first in start order: the children of a collapsed span are left out,
 * and with `only` (a search) just the spans it marks.
 */
export function visibleRows(tree: SpanTree, collapsed: ReadonlySet<number>, only?: Uint8Array | null): number[] {
  const rows: number[] = [];
  const stack: number[] = [];
  for (let r = tree.roots.length - 1; r >= 0; r--) stack.push(tree.roots[r]);
  while (stack.length > 0) {
    const span = stack.pop()!;
    if (only && !only[span]) continue;
    rows.push(span);
    if (collapsed.has(span)) continue;
    const kids = tree.children[span];
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
  }
  return rows;
}

export interface Search {
  /** Spans whose name, id or kind contains the text. */
  matches: number[];
  /** 1 for a match, by span. */
  hit: Uint8Array;
  /** The matches and their ancestors: what stays on screen. */
  shown: Uint8Array;
}

/** Spans matching `text` (ignoring case), with the ancestors that lead to them. */
export function searchTree(tree: SpanTree, outline: Outline, text: string): Search | null {
  const needle = text.trim().toLowerCase();
  if (needle === '') return null;
  const shown = new Uint8Array(tree.size);
  const hit = new Uint8Array(tree.size);
  const matches: number[] = [];
  for (let i = 0; i < tree.size; i++) {
    const matched =
      outline.names[i].toLowerCase().includes(needle) || outline.spanIds[i].toLowerCase().includes(needle) || outline.kinds[i].toLowerCase() === needle;
    if (!matched) continue;
    matches.push(i);
    hit[i] = 1;
    for (let span: number | null = i; span !== null && !shown[span]; span = tree.parent[span]) shown[span] = 1;
  }
  return { matches, hit, shown };
}

/** Every span with children: "collapse all". */
export function allParents(tree: SpanTree): Set<number> {
  const parents = new Set<number>();
  for (let i = 0; i < tree.size; i++) if (tree.children[i].length > 0) parents.add(i);
  return parents;
}
